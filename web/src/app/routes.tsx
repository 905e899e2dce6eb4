import { Navigate, Outlet, type RouteObject } from 'react-router';
import { lazyPage } from '../components/page-suspense';
import { RouteError } from '../components/route-error';
import { AuthBootstrap } from '../features/auth/auth-bootstrap';
import { PublicOnly } from '../features/auth/public-only';
import { RequireAuth } from '../features/auth/require-auth';

/*
 * The whole route table. To add a page, add one line to the right list:
 *   { path: 'workspace/upload', element: lazyPage(() => import('../features/creation/upload-page')) },
 * Page modules default-export their component so each route loads lazily.
 */

/** Inside the authenticated workspace shell (sidebar + top bar). */
export const workspaceRoutes: RouteObject[] = [
  { path: 'my-home', element: lazyPage(() => import('../features/dashboard/dashboard-page')) },
  { path: 'workspace', element: <Navigate to="/my-home" replace /> },
  { path: 'workspace/subscription', element: lazyPage(() => import('../features/subscription/subscription-page')) },
  { path: 'workspace/settings', element: lazyPage(() => import('../features/settings/settings-page')) },
  { path: 'workspace/profile', element: lazyPage(() => import('../features/profile/profile-page')) },
  { path: 'workspace/notifications', element: lazyPage(() => import('../features/notifications/notifications-page')) },
  { path: 'workspace/demo', element: lazyPage(() => import('../features/demo/demo-page')) },
  { path: 'workspace/upload', element: lazyPage(() => import('../features/creation/upload-page')) },
  { path: 'workspace/upload/spin', element: lazyPage(() => import('../features/creation/spin-page')) },
  { path: 'workspace/blueprints', element: lazyPage(() => import('../features/blueprints/blueprints-page')) },
  { path: 'preview/:jobId', element: lazyPage(() => import('../features/creation/preview-page')) },
  { path: 'workspace/preview/:jobId', element: lazyPage(() => import('../features/creation/preview-page')) },
  { path: 'workspace/processing/:jobId', element: lazyPage(() => import('../features/creation/processing-page')) },
  { path: 'workspace/products', element: lazyPage(() => import('../features/products/products-page')) },
  { path: 'workspace/add-product', element: lazyPage(() => import('../features/add-product/add-product-page')) },
  { path: 'workspace/product/:productId', element: lazyPage(() => import('../features/products/product-detail-page')) },
  { path: 'workspace/catalogs', element: lazyPage(() => import('../features/catalogs/catalogs-page')) },
  { path: 'workspace/catalog/:catalogId', element: lazyPage(() => import('../features/catalogs/catalog-page')) },
  { path: 'workspace/gallery', element: lazyPage(() => import('../features/galleries/galleries-page')) },
  { path: 'workspace/gallery/create', element: lazyPage(() => import('../features/galleries/gallery-create-page')) },
  { path: 'workspace/gallery/:galleryId', element: lazyPage(() => import('../features/galleries/gallery-detail-page')) },
  { path: 'workspace/analytics', element: lazyPage(() => import('../features/analytics/analytics-page')) },
  { path: 'workspace/team', element: lazyPage(() => import('../features/team/team-page')) },
  { path: 'workspace/approvals', element: lazyPage(() => import('../features/team/approvals-page')) },
];

/** Authenticated pages without the shell (full-screen flows such as /processing/:jobId). */
export const standaloneRoutes: RouteObject[] = [
  { path: 'processing/:jobId', element: lazyPage(() => import('../features/creation/processing-page')) },
  { path: 'processing', element: <Navigate to="/workspace" replace /> },
  { path: 'workspace/processing', element: <Navigate to="/workspace" replace /> },
];

/** Public marketing pages (top bar; footer on all but home). */
export const marketingRoutes: RouteObject[] = [
  { index: true, element: lazyPage(() => import('../features/marketing/landing-page')) },
  { path: 'demo', element: lazyPage(() => import('../features/demo/demo-page')) },
  { path: 'blog', element: lazyPage(() => import('../features/marketing/blog-page')) },
  { path: 'docs/api', element: lazyPage(() => import('../features/api-docs/api-docs-page')) },
];

/** Sign-in and signup: signed-in visitors are sent to /my-home. */
export const publicOnlyRoutes: RouteObject[] = [
  { path: 'login', element: lazyPage(() => import('../features/auth/login-page')) },
  { path: 'signup', element: lazyPage(() => import('../features/auth/signup-page')) },
];

/** Public pages that work signed in or out. */
export const openRoutes: RouteObject[] = [
  { path: 'forgot-password', element: lazyPage(() => import('../features/auth/forgot-password-page')) },
  { path: 'reset-password', element: lazyPage(() => import('../features/auth/reset-password-page')) },
  { path: 'verify-email', element: lazyPage(() => import('../features/auth/verify-email-page')) },
  { path: 'confirm-email-change', element: lazyPage(() => import('../features/auth/confirm-email-change-page')) },
  // A team invitation link (issue 51): whoever opens it joins as the invited address.
  { path: 'accept-invite', element: lazyPage(() => import('../features/team/accept-invite-page')) },
];

function Root() {
  return (
    <>
      <AuthBootstrap />
      <Outlet />
    </>
  );
}

export const routes: RouteObject[] = [
  {
    path: '/',
    element: <Root />,
    errorElement: <RouteError />,
    children: [
      { element: lazyPage(() => import('../features/marketing/marketing-layout')), children: marketingRoutes },
      { element: <PublicOnly />, children: publicOnlyRoutes },
      ...openRoutes,
      {
        element: <RequireAuth />,
        children: [{ element: lazyPage(() => import('./workspace-shell')), children: workspaceRoutes }, ...standaloneRoutes],
      },
      { path: '*', element: <Navigate to="/" replace /> },
    ],
  },
];
