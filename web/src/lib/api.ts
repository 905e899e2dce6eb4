import { createApi, type BaseQueryFn } from '@reduxjs/toolkit/query/react';
import { clearAuth, currentToken, TOKEN_EXPIRED_EVENT } from './auth-storage';

/**
 * The API's base address from the build setting VITE_API_BASE ("the base address comes from
 * configuration with a default", spec §7): a path on this origin (default /api) or an absolute
 * URL such as https://api.example.com/api. A trailing slash is dropped so paths join cleanly.
 */
export function apiBase(configured: string | undefined): string {
  const v = (configured ?? '').trim().replace(/\/+$/, '');
  return v || '/api';
}

/** Every server call goes under this prefix. */
export const API_BASE = apiBase(import.meta.env.VITE_API_BASE);

/**
 * Window event raised when the server says the person is no longer a member of the session's
 * workspace (403 not_a_member, issue 51); the shell then moves them to a workspace they still have.
 * Its detail is `{token}`: the session the request was refused for.
 */
export const NOT_A_MEMBER_EVENT = 'workspace:not-a-member';

/** Arguments our base query understands; body may be JSON-able or FormData. */
export interface ApiArgs {
  url: string;
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  params?: Record<string, string | number | undefined>;
  /** Absolute path outside /api (static files such as /demo/index.json). */
  absolute?: boolean;
}

/** The error every endpoint rejects with; `message` is what the user sees (spec §8). */
export interface ApiError {
  status: number | 'FETCH_ERROR' | 'PARSE_ERROR' | 'CUSTOM_ERROR';
  code?: string;
  /** The server answered with a `{success:false}` envelope. */
  envelope?: boolean;
  /** What to show; empty when neither the server nor the transport said anything. */
  message: string;
}

/** Picks the message to show: the server's message, else the fallback. */
export function errorMessage(err: unknown, fallback: string): string {
  if (err && typeof err === 'object') {
    const m = (err as { message?: unknown }).message;
    if (typeof m === 'string' && m.trim()) return m;
    const data = (err as { data?: { message?: unknown; error?: { message?: unknown } } }).data;
    const dm = data?.error?.message ?? data?.message;
    if (typeof dm === 'string' && dm.trim()) return dm;
  }
  return fallback;
}

/**
 * Removes the response wrapper: `{success, data, error}` or `{result}` (spec §7).
 * Returns either the payload or the error the server described.
 */
export function unwrapEnvelope(body: unknown): { data: unknown } | { error: { code?: string; message?: string } } {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const b = body as Record<string, unknown>;
    if (b.success === false) {
      const e = (b.error ?? {}) as { code?: unknown; message?: unknown };
      return {
        error: {
          code: typeof e.code === 'string' ? e.code : undefined,
          message: typeof e.message === 'string' ? e.message : typeof b.message === 'string' ? b.message : undefined,
        },
      };
    }
    if ('success' in b && 'data' in b) return { data: b.data };
    if ('result' in b) return { data: b.result };
  }
  return { data: body };
}

function buildUrl(args: ApiArgs): string {
  let url = args.absolute ? args.url : API_BASE + args.url;
  if (args.params) {
    const qs = new URLSearchParams();
    for (const [k, v] of Object.entries(args.params)) if (v !== undefined) qs.set(k, String(v));
    const s = qs.toString();
    if (s) url += (url.includes('?') ? '&' : '?') + s;
  }
  return url;
}

/**
 * Base query for the one API: bearer token while valid, envelope unwrapping,
 * server messages as errors, and sign-out on 401.
 */
export const apiBaseQuery: BaseQueryFn<ApiArgs | string, unknown, ApiError> = async (input, { signal }) => {
  const args: ApiArgs = typeof input === 'string' ? { url: input } : input;
  const headers = new Headers({ Accept: 'application/json' });
  const token = args.absolute ? null : currentToken();
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let body: BodyInit | undefined;
  if (args.body instanceof FormData) body = args.body;
  else if (args.body !== undefined) {
    headers.set('Content-Type', 'application/json');
    body = JSON.stringify(args.body);
  }
  let res: Response;
  try {
    res = await fetch(buildUrl(args), { method: args.method ?? 'GET', headers, body, signal });
  } catch (e) {
    return { error: { status: 'FETCH_ERROR', message: e instanceof Error && e.name === 'AbortError' ? 'Request cancelled' : 'Could not reach the server. Check your connection and try again.' } };
  }
  // A 401 means the session is gone (rejected or expired token) and signs the user out;
  // a 401 from the sign-in calls themselves (wrong password) does not.
  if (res.status === 401 && !args.absolute && !args.url.startsWith('/auth/')) {
    clearAuth();
    if (typeof window !== 'undefined') window.dispatchEvent(new Event(TOKEN_EXPIRED_EVENT));
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      if (res.ok) return { error: { status: 'PARSE_ERROR', message: 'The server sent an unreadable response.' } };
    }
  }
  const unwrapped = unwrapEnvelope(parsed);
  if ('error' in unwrapped) {
    // The token it was refused for travels along: an answer to a session already replaced is old news.
    if (res.status === 403 && unwrapped.error.code === 'not_a_member' && typeof window !== 'undefined') {
      window.dispatchEvent(new CustomEvent(NOT_A_MEMBER_EVENT, { detail: { token } }));
    }
    return {
      error: { status: res.ok ? 'CUSTOM_ERROR' : res.status, code: unwrapped.error.code, envelope: true, message: unwrapped.error.message ?? '' },
    };
  }
  if (!res.ok) {
    return { error: { status: res.status, message: '' } };
  }
  return { data: unwrapped.data };
};

/** The single RTK Query API; features add endpoints with `api.injectEndpoints`. */
export const api = createApi({
  reducerPath: 'api',
  baseQuery: apiBaseQuery,
  tagTypes: ['Me', 'Branding', 'StoreSettings', 'Subscription', 'Notifications', 'Dashboard', 'Search', 'Demo'],
  endpoints: () => ({}),
});
