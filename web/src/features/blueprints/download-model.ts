import { currentToken } from '../../lib/auth-storage';
import { MSG_DOWNLOAD_FAILED } from './blueprint-rules';

/** The model URL answered with an error status (403: an expired or invalid signature). */
export class DownloadRefused extends Error {
  constructor(readonly status: number) {
    super(MSG_DOWNLOAD_FAILED);
  }
}

/**
 * Fetches the model and saves it through a temporary blob link, so the file gets our
 * name (a plain link to a cross-origin URL would ignore `download`).
 */
export async function downloadModel(modelURL: string, fileName: string): Promise<void> {
  const headers = new Headers();
  const sameOrigin = new URL(modelURL, window.location.href).origin === window.location.origin;
  const token = sameOrigin ? currentToken() : null;
  if (token) headers.set('Authorization', `Bearer ${token}`);
  let res: Response;
  try {
    res = await fetch(modelURL, { headers });
  } catch {
    throw new Error(MSG_DOWNLOAD_FAILED);
  }
  if (!res.ok) throw new DownloadRefused(res.status);
  const blob = await res.blob();
  const url = URL.createObjectURL(blob.type ? blob : new Blob([blob], { type: 'model/gltf-binary' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
