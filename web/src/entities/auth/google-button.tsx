import { useEffect, useRef, useState } from 'react';
import { API_BASE, unwrapEnvelope } from '../../lib/api';

const GIS_SRC = 'https://accounts.google.com/gsi/client';

interface GoogleIdApi {
  initialize(cfg: { client_id: string; nonce?: string; callback: (r: { credential?: string }) => void }): void;
  renderButton(el: HTMLElement, opts: Record<string, unknown>): void;
}
declare global {
  interface Window {
    google?: { accounts?: { id?: GoogleIdApi } };
  }
}

let scriptPromise: Promise<void> | null = null;

/** Loads Google Identity Services once, only when a client id is configured. */
function loadGis(): Promise<void> {
  if (window.google?.accounts?.id) return Promise.resolve();
  scriptPromise ??= new Promise<void>((resolve, reject) => {
    const s = document.createElement('script');
    s.src = GIS_SRC;
    s.async = true;
    s.defer = true;
    s.onload = () => resolve();
    s.onerror = () => {
      scriptPromise = null;
      reject(new Error('Google sign-in could not be loaded'));
    };
    document.head.appendChild(s);
  });
  return scriptPromise;
}

/**
 * Starts one Google sign-in attempt: the server's single-use nonce, which Google signs into
 * the ID token; the server accepts that token once (a replayed token is refused).
 */
export async function fetchGoogleNonce(): Promise<string> {
  const res = await fetch(`${API_BASE}/auth/google/nonce`, { method: 'POST' });
  const body = unwrapEnvelope(await res.json().catch(() => null));
  const nonce = 'data' in body ? (body.data as { nonce?: unknown } | null)?.nonce : undefined;
  if (!res.ok || typeof nonce !== 'string' || !nonce) throw new Error('Google sign-in could not be started');
  return nonce;
}

/** Google client id from the build; when unset there is no Google button at all. */
export const googleClientId = (import.meta.env.VITE_GOOGLE_CLIENT_ID ?? '').trim();

/**
 * Google's own sign-in button. Hands the credential to `onCredential`, or reports
 * a failure through `onError` (the caller shows 'Google login failed. Please try again.').
 */
export function GoogleButton({
  clientId,
  onCredential,
  onError,
  disabled,
  text = 'signup_with',
}: {
  clientId: string;
  /** Google's button caption: "Sign up with Google" on /signup, "Sign in with Google" on /login. */
  text?: 'signup_with' | 'signin_with';
  onCredential: (credential: string) => void;
  onError: () => void;
  disabled?: boolean;
}) {
  const el = useRef<HTMLDivElement>(null);
  const handlers = useRef({ onCredential, onError });
  handlers.current = { onCredential, onError };
  const [failed, setFailed] = useState(false);

  useEffect(() => {
    let cancelled = false;
    // Each attempt gets its own nonce; after one is used the button is armed with the next.
    const arm = async () => {
      const [nonce] = await Promise.all([fetchGoogleNonce(), loadGis()]);
      const gid = window.google?.accounts?.id;
      if (cancelled || !gid || !el.current) return;
      gid.initialize({
        client_id: clientId,
        nonce,
        callback: (r) => {
          if (r.credential) handlers.current.onCredential(r.credential);
          else handlers.current.onError();
          arm().catch(() => !cancelled && setFailed(true));
        },
      });
      gid.renderButton(el.current, { theme: 'outline', size: 'large', text, shape: 'rectangular', width: 320 });
    };
    arm().catch(() => !cancelled && setFailed(true));
    return () => {
      cancelled = true;
    };
  }, [clientId, text]);

  if (failed) return <p className="muted">Google sign-in is unavailable right now.</p>;
  return <div ref={el} className={disabled ? 'google-button google-button--disabled' : 'google-button'} aria-busy={disabled} />;
}
