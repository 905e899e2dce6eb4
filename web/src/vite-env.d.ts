/// <reference types="vite/client" />

interface ImportMetaEnv {
  /** Base address of the API (default /api); an absolute URL when the API lives on another host. */
  readonly VITE_API_BASE?: string;
  /** Google Identity Services client id; when unset the Google button is not shown. */
  readonly VITE_GOOGLE_CLIENT_ID?: string;
  /** External form the landing page's "Join the waitlist" links to. */
  readonly VITE_WAITLIST_URL?: string;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}
