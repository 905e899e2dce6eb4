import { API_BASE } from './api';
import { currentToken } from './auth-storage';

export const MSG_DOWNLOAD_FAILED = 'The file could not be downloaded. Please try again.';

/** The URL answered with an error status (403: an expired or invalid signature; 401: signed out). */
export class DownloadRefused extends Error {
  constructor(
    readonly status: number,
    message = MSG_DOWNLOAD_FAILED,
  ) {
    super(message);
  }
}

/** The API path joined to the configured base (VITE_API_BASE), e.g. "/analytics/export.csv". */
export function apiURL(path: string): string {
  return API_BASE + (path.startsWith('/') ? path : `/${path}`);
}

/**
 * Whether a URL is under the configured API base, so it gets the bearer token. Signed blob
 * URLs (/blobs/…) and other hosts never see the token.
 */
export function isApiURL(url: string, base = API_BASE, here = window.location.href): boolean {
  const target = new URL(url, here);
  const api = new URL(base.endsWith('/') ? base : `${base}/`, here);
  return target.origin === api.origin && target.pathname.startsWith(api.pathname);
}

/**
 * The one download path of the app: fetches the file (with the bearer token when the URL is
 * an API route under the configured base) and saves it through a temporary blob link, so the
 * file gets our name (a plain link cannot send the token, and a cross-origin link ignores
 * `download`). `fileName` is the fallback when the server names no file.
 */
export async function downloadFile(url: string, fileName: string, fallbackType = 'application/octet-stream'): Promise<void> {
  const headers = new Headers();
  const token = isApiURL(url) ? currentToken() : null;
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch {
    throw new Error(MSG_DOWNLOAD_FAILED);
  }
  if (!res.ok) throw new DownloadRefused(res.status, await serverMessage(res));
  const blob = await res.blob();
  const href = URL.createObjectURL(blob.type ? blob : new Blob([blob], { type: fallbackType }));
  const a = document.createElement('a');
  a.href = href;
  a.download = attachmentName(res.headers.get('Content-Disposition')) ?? fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(href), 10_000);
}

/** The file name a Content-Disposition header gives, if any. */
export function attachmentName(header: string | null): string | null {
  if (!header) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (star) {
    try {
      return decodeURIComponent(star[1].trim());
    } catch {
      /* fall through to the plain name */
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(header);
  return plain ? plain[1].trim() : null;
}

/** The server's envelope message on a refused download, else the generic one. */
async function serverMessage(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { error?: { message?: unknown } };
    const m = body?.error?.message;
    return typeof m === 'string' && m ? m : MSG_DOWNLOAD_FAILED;
  } catch {
    return MSG_DOWNLOAD_FAILED;
  }
}
