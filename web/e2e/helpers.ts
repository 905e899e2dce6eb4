import { expect, type APIRequestContext, type Locator, type Page, type TestInfo } from '@playwright/test';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';

/** Where screenshots of each screen go (ops/test.sh sets ARTIFACTS_DIR). */
export const screensDir = process.env.ARTIFACTS_DIR ?? 'test-results/screens';

/** Full-page screenshot named after the screen, plus attached to the report. */
export async function snap(page: Page, name: string, testInfo?: TestInfo) {
  mkdirSync(screensDir, { recursive: true });
  const path = join(screensDir, `${name}.png`);
  // Full-page captures of a scrolled page misplace sticky bars; start from the top.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path, fullPage: true });
  if (testInfo) await testInfo.attach(name, { path, contentType: 'image/png' });
}

/**
 * Console errors and uncaught page errors, for the test to assert none happened.
 * The one expected network miss is /demo/index.json when no demo samples are bundled.
 */
export function collectErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    if (/Failed to load resource/.test(m.text()) && m.location().url.endsWith('/demo/index.json')) return;
    errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
  return errors;
}

/** An address no earlier run has used. */
export function uniqueEmail(prefix = 'e2e') {
  return `${prefix}.${Date.now()}.${Math.floor(Math.random() * 1e6)}@example.com`;
}

/** The session answer of POST /api/auth/login (data.token, data.user, data.expiresAt). */
export interface AuthAnswer {
  token: string;
  user: { id: string; email: string; emailVerified?: boolean };
  expiresAt: number;
}

/**
 * The dev mail store: with DEV_MODE the api writes every mail it would send as a JSON file
 * under DATA_DIR/outbox (ops/test.sh exports DATA_DIR to this process too).
 */
function outboxDir(): string {
  const data = process.env.DATA_DIR ?? '.data';
  return join(isAbsolute(data) ? data : join(process.cwd(), '..', data), 'outbox');
}

/**
 * The newest verification link mailed to email ("/verify-email?token=…"), read from the dev
 * mail store. A new password account signs in only through it (issue 28 item 14).
 */
export async function verificationLink(email: string, since = 0): Promise<string> {
  const want = email.toLowerCase();
  let link = '';
  await expect
    .poll(
      () => {
        const dir = outboxDir();
        if (!existsSync(dir)) return '';
        // Newest first by write time: the worker names mail files by outbox id,
        // and an address that signs up again gets a second, newer link.
        // Dot files are mail being written (the store writes a temporary file and
        // renames it): they vanish between the listing and the read.
        const files = readdirSync(dir)
          .filter((f) => !f.startsWith('.'))
          .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
          .filter((x) => x.t >= since) // only mail written after the request that asked for it
          .sort((a, b) => b.t - a.t)
          .map((x) => x.f);
        for (const f of files) {
          const m = JSON.parse(readFileSync(join(dir, f), 'utf8')) as { to: string; body: string };
          const found = m.to.toLowerCase() === want ? /\/verify-email\?token=([A-Za-z0-9_-]+)/.exec(m.body) : null;
          if (found) return (link = found[0]);
        }
        return '';
      },
      { timeout: 10_000, message: `no verification mail to ${email} in ${outboxDir()}` },
    )
    .not.toBe('');
  return link;
}

/**
 * Signs a new account up through the API and signs it in. Sign-up answers 202 with the
 * same message for new and taken addresses and no token (issue 11 item 13), and a new
 * password account cannot sign in before its address is verified (issue 28 item 14): the
 * session comes from the mailed verification link, as when the merchant opens it.
 */
export async function apiSignUp(request: APIRequestContext, data: { email: string; password: string; name: string }): Promise<AuthAnswer> {
  // The worker writes the mail a moment after the sign-up (mail outbox): wait for one
  // written after this request, not an older link to the same address.
  const since = Date.now() - 20; // same clock as the mail files' mtime; a little slack for its rounding
  const res = await request.post('/api/auth/signup', { data });
  if (res.status() !== 202) throw new Error(`signup failed: ${res.status()} ${await res.text()}`);
  const token = new URL(await verificationLink(data.email, since), 'http://x').searchParams.get('token');
  const verified = await request.post('/api/auth/verify-email', { data: { token } });
  if (!verified.ok()) throw new Error(`verification after signup failed: ${verified.status()} ${await verified.text()}`);
  return ((await verified.json()) as { data: AuthAnswer }).data;
}

/** Opens the verification link mailed to email in page; it signs the new account in. */
export async function openVerificationLink(page: Page, email: string) {
  await page.goto(await verificationLink(email));
  await expect(page.getByText('Your email address is verified.')).toBeVisible();
  await page.waitForURL('**/my-home');
}

/**
 * A fresh merchant: created through the API, then signed in through the form (which shows
 * "Logged in successfully! Redirecting..." before it leaves). Returns the API token.
 */
export async function signUpAndSignIn(page: Page, prefix: string): Promise<string> {
  const email = uniqueEmail(prefix);
  const password = 'Sup3r-secret-pw';
  const { token } = await apiSignUp(page.request, { email, password, name: 'Plan Tester' });
  await page.goto('/login');
  await page.getByLabel('Email Address').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL('**/my-home');
  return token;
}

/** The API's answer envelope. */
export interface Envelope<T> {
  success: boolean;
  data: T;
  error?: { code: string; message: string };
}

/** Calls the API as one user and returns `data`, failing the test on an error answer. */
export class Api {
  constructor(
    private request: APIRequestContext,
    public token = '',
  ) {}
  async call<T>(method: 'get' | 'post' | 'patch' | 'put' | 'delete', url: string, data?: unknown): Promise<T> {
    const res = await this.request[method](url, { headers: { Authorization: `Bearer ${this.token}` }, data: data as never });
    const body = (await res.json()) as Envelope<T>;
    expect(body.success, `${method.toUpperCase()} ${url}: ${JSON.stringify(body.error)}`).toBe(true);
    return body.data;
  }
}

/**
 * A blueprint built by the real worker from an uploaded photo; resolves with its job id once the
 * server reports it completed (software reconstruction on a busy machine: generous).
 */
export async function blueprintFromPhoto(api: Api, request: APIRequestContext, photo: Buffer, name = 'vase.png'): Promise<string> {
  const res = await request.post('/api/uploads/content', {
    headers: { Authorization: `Bearer ${api.token}` },
    multipart: { file: { name, mimeType: 'image/png', buffer: photo } },
  });
  const uploaded = ((await res.json()) as Envelope<{ url?: string; imageURL?: string; publicURL?: string }>).data;
  const job = await api.call<{ id: string }>('post', '/api/jobs', { imageURL: uploaded.imageURL ?? uploaded.url ?? uploaded.publicURL });
  await expect
    .poll(async () => (await api.call<{ status: string }>('get', `/api/jobs/${job.id}`)).status, { timeout: 150_000, intervals: [1000] })
    .toBe('completed');
  return job.id;
}

/**
 * After a build starts: waits until the processing page (or the preview, had the build already
 * finished) is on screen, and answers whether it is the processing page. The address changes
 * before the page does, so a test that read the page as soon as the URL matched could read the
 * form it came from (the spin-set test on a fully loaded machine, make test at 40d211e).
 */
export async function processingPageShown(page: Page): Promise<boolean> {
  await page.waitForURL(/\/(processing|preview)\/[^/]+$/);
  const processing = page.getByRole('heading', { name: 'Processing Your Blueprint' });
  await expect(processing.or(page.getByTestId('preview-views'))).toBeVisible({ timeout: 60_000 });
  return processing.isVisible();
}

/** A file as a test hands it to the page: its name, type and bytes. */
export type DroppedFile = { name: string; mimeType: string; buffer: Buffer };

/** Drops files on an element the way a desktop drag does: one drop event carrying a DataTransfer. */
export async function dropFiles(page: Page, target: Locator, files: DroppedFile[]) {
  const dataTransfer = await page.evaluateHandle(
    (list) => {
      const dt = new DataTransfer();
      for (const f of list) {
        const bytes = Uint8Array.from(atob(f.b64), (c) => c.charCodeAt(0));
        dt.items.add(new File([bytes], f.name, { type: f.mimeType }));
      }
      return dt;
    },
    files.map((f) => ({ name: f.name, mimeType: f.mimeType, b64: f.buffer.toString('base64') })),
  );
  await target.dispatchEvent('dragover', { dataTransfer });
  await target.dispatchEvent('drop', { dataTransfer });
}

/** How far the page runs past the viewport's right edge (0: nothing to scroll sideways). */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
}

/**
 * From a build's preview: Share / Download → Share Link publishes it, then the share page is opened
 * and waited on until model-viewer says the model loaded; a screenshot named shot is taken there.
 */
export async function shareAndLoadModel(page: Page, shot: string, testInfo?: TestInfo) {
  await page.getByRole('button', { name: 'Share / Download' }).click();
  const dialog = page.getByRole('dialog', { name: 'Share / Download' });
  await dialog.getByRole('button', { name: 'Share Link' }).click();
  const shareURL = dialog.getByTestId('share-url');
  await expect(shareURL).toHaveValue(/\/v\/[A-Za-z0-9_-]{11,}$/, { timeout: 30_000 });
  const url = await shareURL.inputValue();
  await page.goto(url);
  await page.waitForFunction(() => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true, undefined, {
    timeout: 60_000,
  });
  await snap(page, shot, testInfo);
}
