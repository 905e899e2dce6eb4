import { Navigate, Outlet, useLocation } from 'react-router';
import { LoadingScreen } from '../../components/loading-screen';
import { useAppSelector } from '../../lib/hooks';
import { selectAuthStatus } from '../../lib/session';

/** Guards the workspace: signed-out visitors go to /login carrying where they were. */
export function RequireAuth() {
  const status = useAppSelector(selectAuthStatus);
  const location = useLocation();
  if (status === 'loading') return <LoadingScreen fullPage />;
  if (status !== 'authenticated') {
    const from = `${location.pathname}${location.search}${location.hash}` || '/my-home';
    return <Navigate to="/login" replace state={{ from }} />;
  }
  return <Outlet />;
}
