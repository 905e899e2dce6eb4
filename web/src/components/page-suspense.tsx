import { lazy, Suspense, type ComponentType } from 'react';
import { LoadingScreen } from './loading-screen';

/**
 * Turns a page module loader into a lazily loaded route element, so each route
 * table entry stays one line: `{ path: 'x', element: lazyPage(() => import('…')) }`.
 * The module must default-export its page component.
 */
export function lazyPage(load: () => Promise<{ default: ComponentType }>) {
  const Page = lazy(load);
  return (
    <Suspense fallback={<LoadingScreen />}>
      <Page />
    </Suspense>
  );
}
