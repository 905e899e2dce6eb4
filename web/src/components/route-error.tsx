import { isRouteErrorResponse, Link, useRouteError } from 'react-router';

/** Router error screen (spec §8). */
export function RouteError() {
  const error = useRouteError();
  const detail = isRouteErrorResponse(error)
    ? `${error.status} ${error.statusText}`
    : error instanceof Error
      ? error.message
      : '';
  if (error) console.error(error);
  return (
    <main className="route-error">
      <h1>Unexpected Application Error!</h1>
      {detail && <p className="route-error__detail">{detail}</p>}
      <p>
        <Link to="/">Go to the home page</Link>
      </p>
    </main>
  );
}
