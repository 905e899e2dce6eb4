import { test, expect, type APIRequestContext, type Page } from '@playwright/test';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodePNG } from './fixtures/product-photo';
import { apiSignUp, collectErrors, snap, uniqueEmail } from './helpers';

/**
 * The "Link" journey against the real api + worker: a Pro-trial merchant's
 * photo becomes a model, is published, and the public share page loads the
 * model in Chromium; the embed works inside an iframe on another origin,
 * while the share page itself refuses to be framed; unpublishing kills both.
 */

/** A 256×256 product photo: a red vase-like silhouette on a white background. */
function productPhoto(): Buffer {
  const size = 256;
  const rgb = new Uint8Array(size * size * 3).fill(255);
  for (let y = 0; y < size; y++) {
    const half = y > 40 && y < 230 ? 30 + 40 * Math.sin(((y - 40) / 190) * Math.PI) : 0;
    for (let x = 0; x < size; x++) {
      if (Math.abs(x - size / 2) < half) {
        const i = (y * size + x) * 3;
        rgb[i] = 200;
        rgb[i + 1] = 40 + (y % 30);
        rgb[i + 2] = 40;
      }
    }
  }
  return encodePNG(size, size, rgb);
}

async function data<T>(res: Awaited<ReturnType<APIRequestContext['get']>>): Promise<T> {
  const body = (await res.json()) as { success: boolean; data: T; error?: { message: string } };
  expect(body.success, JSON.stringify(body.error)).toBe(true);
  return body.data;
}

interface Publication {
  id: string;
  slug: string;
  shareURL: string;
  embedURL: string;
  embedCode: string;
  qrURL: string;
  version: number;
}

/**
 * Serves one page with the given HTML on a different origin (another loopback port). It answers
 * the browser's own /favicon.ico request too (204), so that closing it never cuts one off.
 */
async function otherOrigin(html: string): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    if (req.url === '/favicon.ico') {
      res.writeHead(204);
      res.end();
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, server };
}

async function modelLoaded(target: Page | import('@playwright/test').Frame) {
  await target.waitForFunction(
    () => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true,
    undefined,
    { timeout: 45_000 },
  );
}

test('publish → share page loads the model → embed works cross-origin → unpublish', async ({ page, request, browser }, testInfo) => {
  test.setTimeout(180_000);
  const errors = collectErrors(page);
  let token = '';
  const auth = () => ({ Authorization: `Bearer ${token}` });
  let pub!: Publication;

  await test.step('a merchant on the Pro trial turns a photo into a model', async () => {
    const signup = await apiSignUp(request, { email: uniqueEmail('share'), password: 'correct horse 42', name: 'Share Tester' });
    token = signup.token;
    await data(await request.post('/api/subscription/trial', { headers: auth(), data: {} }));
    const uploaded = await data<{ url?: string; imageURL?: string; publicURL?: string }>(
      await request.post('/api/uploads/content', {
        headers: auth(),
        multipart: { file: { name: 'vase.png', mimeType: 'image/png', buffer: productPhoto() } },
      }),
    );
    const imageURL = uploaded.imageURL ?? uploaded.url ?? uploaded.publicURL;
    const job = await data<{ id: string }>(await request.post('/api/jobs', { headers: auth(), data: { imageURL } }));
    await expect
      .poll(async () => (await data<{ status: string }>(await request.get(`/api/jobs/${job.id}`, { headers: auth() }))).status, {
        timeout: 120_000,
        intervals: [1000],
      })
      .toBe('completed');
    const res = await request.post('/api/publications', { headers: auth(), data: { blueprintId: job.id } });
    expect(res.status()).toBe(201);
    pub = await data<Publication>(res);
    expect(pub.slug).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(pub.embedCode).toContain('width="800" height="600"');
  });

  const viewsUsed = async () =>
    (await data<{ publicViewsUsed: number }>(await request.get('/api/subscription', { headers: auth() }))).publicViewsUsed;
  await test.step('the share page loads the model, with the QR code on desktop, and its view beacon counts', async () => {
    const before = await viewsUsed();
    const beacon = page.waitForResponse((r) => r.url().endsWith('/t') && r.request().method() === 'POST');
    await page.goto(pub.shareURL);
    await modelLoaded(page);
    // The view beacon carries the page's view token and comes from our origin: stored and counted.
    expect((await beacon).status()).toBe(204);
    expect(JSON.parse((await beacon).request().postData() ?? '{}').token).toMatch(/^\d+\.[A-Za-z0-9_-]{22}$/);
    await expect.poll(viewsUsed, { timeout: 15_000 }).toBe(before + 1);
    await expect(page.locator('model-viewer')).toHaveAttribute('ar-modes', 'webxr scene-viewer quick-look');
    await expect(page.getByText('View in your space')).toBeVisible();
    await page.getByText('View in your space').click();
    await expect(page.getByAltText('QR code that opens this page on your phone')).toBeVisible();
    await snap(page, 'share-page', testInfo);
  });

  await test.step('on a DPR 3 phone the model is drawn at 2 pixels per CSS pixel (pixel-ratio.ts)', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 3, isMobile: true, hasTouch: true });
    try {
      const mobile = await phone.newPage();
      await mobile.goto(pub.shareURL);
      await modelLoaded(mobile);
      const drawn = await mobile.evaluate(() => {
        const viewer = document.querySelector('model-viewer')!;
        const canvases = Array.from(viewer.shadowRoot!.querySelectorAll('canvas'));
        return {
          screen3x: matchMedia('(resolution: 3dppx)').matches,
          cssWidth: viewer.getBoundingClientRect().width,
          canvasWidth: Math.max(...canvases.map((c) => c.width)),
        };
      });
      expect(drawn.screen3x).toBe(true); // the page itself is still laid out and painted at 3
      expect(drawn.canvasWidth).toBe(Math.ceil(drawn.cssWidth * 2));
    } finally {
      await phone.close();
    }
  });

  await test.step('the embed works inside an iframe on another origin', async () => {
    const host = await otherOrigin(
      `<!doctype html><title>Shop</title><h1>A shop</h1>${pub.embedCode}`,
    );
    try {
      await page.goto(host.url);
      await expect.poll(() => page.frame({ url: /\/embed\// }) !== null, { timeout: 15_000 }).toBe(true);
      const frame = page.frame({ url: /\/embed\// })!;
      await modelLoaded(frame);
      await snap(page, 'embed-cross-origin', testInfo);
      // The shop's own page beaconing a view for the slug, even with a valid token its server
      // fetched from our page, is refused: its Origin is neither ours nor an allowed embed origin.
      const html = await (await request.get(pub.shareURL)).text();
      const viewToken = /<meta name="p3d-view-token" content="([^"]+)">/.exec(html)?.[1];
      expect(viewToken).toBeTruthy();
      const foreign = page.waitForResponse((r) => r.url().endsWith('/t') && (r.request().postData() ?? '').includes('foreign-site-viewer'));
      await page.evaluate(
        ([url, body]) => navigator.sendBeacon(url, body),
        [
          new URL('/t', pub.shareURL).href,
          JSON.stringify({ v: 1, slug: pub.slug, viewer: 'foreign-site-viewer-0001', token: viewToken, events: [{ t: 'view', at: Date.now() }] }),
        ],
      );
      expect((await foreign).status()).toBe(403);
    } finally {
      // Leave the stand-in's page before closing it: a request still in flight would be reset.
      await page.goto('about:blank');
      host.server.close();
    }
  });

  await test.step('the share page itself refuses to be framed', async () => {
    const host = await otherOrigin(`<!doctype html><title>Framer</title><iframe src="${pub.shareURL}" width="800" height="600"></iframe>`);
    const blocked: string[] = [];
    page.on('console', (m) => {
      if (/frame-ancestors|Refused to display/.test(m.text())) blocked.push(m.text());
    });
    try {
      await page.goto(host.url);
      await expect.poll(() => blocked.length, { timeout: 15_000 }).toBeGreaterThan(0);
      const frame = page.frames().find((f) => f !== page.mainFrame());
      expect(await frame?.evaluate(() => document.querySelector('model-viewer')).catch(() => null)).toBeFalsy();
    } finally {
      // Leave the stand-in's page before closing it: a request still in flight would be reset.
      await page.goto('about:blank');
      host.server.close();
    }
  });

  await test.step('unpublishing stops the link at once', async () => {
    await data(await request.delete(`/api/publications/${pub.id}`, { headers: auth() }));
    const res = await page.goto(pub.shareURL);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: "This link doesn't work any more" })).toBeVisible();
  });

  // The blocked-frame step logs the refusal on purpose, as does the foreign site's refused
  // beacon (403 on /t); nothing else may fail.
  expect(errors.filter((e) => !/frame-ancestors|Refused to display|404|403 \(Forbidden\) \(http:\/\/[^)]+\/t\)/.test(e))).toEqual([]);
});
