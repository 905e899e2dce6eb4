import { useRef } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { LoadingScreen } from '../../components/loading-screen';
import { useAppSelector } from '../../lib/hooks';
import { selectAuthStatus } from '../../lib/session';

/**
 * /login and /signup: someone already signed in when arriving is sent to /my-home,
 * unless navigation state forces the form. Signing in on the page itself does not
 * trigger this; the page shows its success message and redirects on its own.
 */
export function PublicOnly() {
  const status = useAppSelector(selectAuthStatus);
  const location = useLocation();
  const arrivedSignedIn = useRef<boolean | null>(null);
  if (arrivedSignedIn.current === null && status !== 'loading') arrivedSignedIn.current = status === 'authenticated';
  if (status === 'loading') return <LoadingScreen fullPage />;
  const forced = Boolean((location.state as { forceLogin?: boolean } | null)?.forceLogin);
  if (arrivedSignedIn.current && status === 'authenticated' && !forced) return <Navigate to="/my-home" replace />;
  return <Outlet />;
}
