import { render } from '@testing-library/react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import { vi } from 'vitest';
import { makeStore } from '../app/store';
import { saveAuth } from '../lib/auth-storage';
import type { AuthUser } from '../lib/user';

export const testUser: AuthUser = {
  id: 'u1',
  email: 'asha@example.com',
  name: 'Asha Rao',
  firstName: 'Asha',
  lastName: 'Rao',
  avatarUrl: null,
};

/** Saves a valid session the way a real sign-in would. */
export function signIn(user: AuthUser = testUser) {
  saveAuth({ token: 'tok-1', user, expiresAt: Date.now() + 3_600_000 }, false);
}

/** Renders routes in a memory router with a fresh store. */
export function renderRoutes(routes: RouteObject[], initialEntries: (string | { pathname: string; state?: unknown })[] = ['/']) {
  const store = makeStore();
  const router = createMemoryRouter(routes, { initialEntries });
  const utils = render(
    <Provider store={store}>
      <RouterProvider router={router} />
    </Provider>,
  );
  return { ...utils, store, router };
}

type Handler = (init: { method: string; body: unknown; url: URL; headers: Headers }) => unknown;

/**
 * Replaces fetch with route handlers keyed "METHOD /path". A handler returns a body
 * (wrapped as {success:true,data}) or a Response for full control.
 */
export function stubFetch(handlers: Record<string, Handler>) {
  const calls: { method: string; url: string; body: unknown; headers: Headers }[] = [];
  const fn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init?.method ?? 'GET').toUpperCase();
    const headers = new Headers(init?.headers);
    let body: unknown = init?.body;
    if (typeof body === 'string') body = JSON.parse(body);
    calls.push({ method, url: url.pathname + url.search, body, headers });
    const h = handlers[`${method} ${url.pathname}`];
    if (!h) return new Response(JSON.stringify({ success: false, error: { code: 'not_found', message: 'Not found' } }), { status: 404 });
    const out = await h({ method, body, url, headers });
    if (out instanceof Response) return out;
    return new Response(JSON.stringify({ success: true, data: out }), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fn);
  return { fn, calls };
}

export function jsonResponse(body: unknown, status = 200) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });
}
