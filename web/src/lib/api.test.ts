import { configureStore } from '@reduxjs/toolkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse } from '../test/render';
import { api, apiBase, apiBaseQuery, errorMessage, unwrapEnvelope } from './api';
import { AUTH_STORAGE_KEY, saveAuth, TOKEN_EXPIRED_EVENT } from './auth-storage';

const baseApi = { signal: new AbortController().signal } as Parameters<typeof apiBaseQuery>[1];

afterEach(() => vi.unstubAllGlobals());

describe('unwrapEnvelope', () => {
  it('removes {success,data} and {result} wrappers', () => {
    expect(unwrapEnvelope({ success: true, data: { a: 1 } })).toEqual({ data: { a: 1 } });
    expect(unwrapEnvelope({ result: [1] })).toEqual({ data: [1] });
    expect(unwrapEnvelope({ plain: true })).toEqual({ data: { plain: true } });
  });
  it('surfaces success:false as an error with the server message', () => {
    expect(unwrapEnvelope({ success: false, error: { code: 'invalid', message: 'Bad colour' } })).toEqual({
      error: { code: 'invalid', message: 'Bad colour' },
    });
    expect(unwrapEnvelope({ success: false })).toEqual({ error: { code: undefined, message: undefined } });
  });
});

describe('errorMessage', () => {
  it('prefers the message, else the fallback', () => {
    expect(errorMessage({ message: 'Server says no' }, 'fallback')).toBe('Server says no');
    expect(errorMessage({ message: '' }, 'fallback')).toBe('fallback');
    expect(errorMessage(undefined, 'fallback')).toBe('fallback');
  });
});

describe('apiBaseQuery', () => {
  it('prefixes /api, sends JSON and the bearer token while valid', async () => {
    saveAuth({ token: 'abc', user: null, expiresAt: Date.now() + 60_000 }, false);
    const fetchMock = vi.fn(async () => jsonResponse({ success: true, data: { ok: 1 } }));
    vi.stubGlobal('fetch', fetchMock);
    const res = await apiBaseQuery({ url: '/branding', method: 'PUT', body: { brandName: 'X' } }, baseApi, {});
    expect(res).toEqual({ data: { ok: 1 } });
    const [url, init] = fetchMock.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/branding');
    const headers = new Headers(init.headers);
    expect(headers.get('Authorization')).toBe('Bearer abc');
    expect(headers.get('Content-Type')).toBe('application/json');
    expect(init.body).toBe('{"brandName":"X"}');
  });
  it('sends no token when the stored one has expired', async () => {
    sessionStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify({ token: 'old', user: null, expiresAt: Date.now() - 1 }));
    const fetchMock = vi.fn(async () => jsonResponse({ success: true, data: null }));
    vi.stubGlobal('fetch', fetchMock);
    await apiBaseQuery('/subscription', baseApi, {});
    const init = (fetchMock.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(new Headers(init.headers).has('Authorization')).toBe(false);
  });
  it('adds query params and passes FormData through untouched', async () => {
    const fetchMock = vi.fn(async () => jsonResponse({ result: { items: [] } }));
    vi.stubGlobal('fetch', fetchMock);
    const form = new FormData();
    form.append('file', new Blob(['x']), 'a.png');
    await apiBaseQuery({ url: '/search', params: { q: 'red chair' } }, baseApi, {});
    await apiBaseQuery({ url: '/branding/logo', method: 'POST', body: form }, baseApi, {});
    expect((fetchMock.mock.calls[0] as unknown as [string])[0]).toBe('/api/search?q=red+chair');
    const init = (fetchMock.mock.calls[1] as unknown as [string, RequestInit])[1];
    expect(init.body).toBe(form);
    expect(new Headers(init.headers).has('Content-Type')).toBe(false);
  });
  it('returns the server message on success:false', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse({ success: false, error: { code: 'validation', message: 'Brand colour must look like #RRGGBB' } }, 422)));
    const res = await apiBaseQuery({ url: '/branding', method: 'PUT', body: {} }, baseApi, {});
    expect(res.error).toMatchObject({ status: 422, code: 'validation', message: 'Brand colour must look like #RRGGBB', envelope: true });
  });
  it('on 401 clears the token and raises the token-expired event', async () => {
    saveAuth({ token: 'abc', user: null, expiresAt: Date.now() + 60_000 }, true);
    vi.stubGlobal('fetch', vi.fn(async () => jsonResponse({ success: false, error: { code: 'unauthorized', message: 'Session expired' } }, 401)));
    const listener = vi.fn();
    window.addEventListener(TOKEN_EXPIRED_EVENT, listener);
    const res = await apiBaseQuery('/users/me', baseApi, {});
    window.removeEventListener(TOKEN_EXPIRED_EVENT, listener);
    expect(res.error?.status).toBe(401);
    expect(listener).toHaveBeenCalledTimes(1);
    expect(sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });
  it('reports network failures', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    const res = await apiBaseQuery('/dashboard', baseApi, {});
    expect(res.error?.status).toBe('FETCH_ERROR');
  });
  it('plugs into a store', () => {
    const store = configureStore({ reducer: { [api.reducerPath]: api.reducer }, middleware: (g) => g().concat(api.middleware) });
    expect(store.getState().api).toBeDefined();
  });
});

// Spec §7: "Base address comes from configuration with a default service address."
describe('API base address (VITE_API_BASE, default /api)', () => {
  it('defaults to /api and drops a trailing slash from the configured value', () => {
    expect(apiBase(undefined)).toBe('/api');
    expect(apiBase('  ')).toBe('/api');
    expect(apiBase('/backend/api/')).toBe('/backend/api');
    expect(apiBase('https://api.example.com/api')).toBe('https://api.example.com/api');
  });

  it('sends every call to the address the build was configured with', async () => {
    vi.stubEnv('VITE_API_BASE', 'https://api.example.com/v2/');
    vi.resetModules();
    try {
      const fresh = await import('./api');
      const fetchMock = vi.fn(async () => jsonResponse({ success: true, data: {} }));
      vi.stubGlobal('fetch', fetchMock);
      await fresh.apiBaseQuery({ url: '/subscription' }, baseApi, {});
      expect((fetchMock.mock.calls[0] as unknown as [string])[0]).toBe('https://api.example.com/v2/subscription');
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });
});
