import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect as baseExpect, test } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, apiSignUp, blueprintFromPhoto, uniqueEmail } from './helpers';

/*
 * Issue 32, item 4: Photo3D as an oEmbed provider, seen from a consumer. A merchant publishes a
 * model; a blog (a page on another origin, served by the test) is given the share link, reads the
 * share page, discovers the oEmbed endpoint from its <link rel="alternate">, asks it for a 480-pixel
 * column and puts the returned html into its post (served by a small HTTP server of this test on
 * 127.0.0.1, another origin than the app's localhost; both local, so Chromium's private-network
 * rules allow the frame as they would between two public sites). Chromium then shows the model inside the blog's
 * page at the requested size. After unpublishing, the endpoint answers 404.
 */
test.setTimeout(240_000);
const expect = baseExpect.configure({ timeout: 30_000 });

interface OEmbed {
  version: string;
  type: string;
  title: string;
  provider_name: string;
  html: string;
  width: number;
  height: number;
}

test('oEmbed: discover from the share page, embed in another site, the model renders; unpublished → 404', async ({ browser, request }) => {
  const api = new Api(request);
  const signup = await apiSignUp(request, { name: 'oEmbed Tester', email: uniqueEmail('oembed'), password: 'Sup3r-secret-pw' });
  api.token = signup.token;
  await api.call('post', '/api/subscription/trial', {});
  const blueprintId = await blueprintFromPhoto(api, request, productPhotoPNG(240, 300));
  const pub = await api.call<{ id: string; slug: string; shareURL: string }>('post', '/api/publications', { blueprintId });

  // The consumer's side: fetch the page, find the discovery tag, ask the endpoint.
  const pageHTML = await (await request.get(pub.shareURL)).text();
  const link = /<link rel="alternate" type="application\/json\+oembed" href="([^"]+)"/.exec(pageHTML);
  expect(link, 'the share page names its oEmbed endpoint').not.toBeNull();
  const endpoint = new URL(link![1].replaceAll('&amp;', '&'));
  expect(endpoint.pathname).toBe('/oembed');
  expect(endpoint.searchParams.get('url')).toBe(pub.shareURL);
  endpoint.searchParams.set('maxwidth', '480');
  const res = await request.get(endpoint.href);
  expect(res.status()).toBe(200);
  const oe = (await res.json()) as OEmbed;
  expect(oe).toMatchObject({ version: '1.0', type: 'rich', provider_name: 'Photo3D', width: 480, height: 360 });
  // The embed's own utm_source: analytics counts these views as coming from oEmbed consumers.
  expect(oe.html).toMatch(/^<iframe src="[^"]+\/embed\/[A-Za-z0-9_-]+\?utm_source=oembed" /);

  // The blog renders the html in its post; the model loads inside it.
  const blog = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html><head><title>Blog</title></head><body><h1>My post</h1><div id="embed">${oe.html}</div></body></html>`);
  });
  await new Promise<void>((resolve) => blog.listen(0, '127.0.0.1', resolve));
  const blogURL = `http://127.0.0.1:${(blog.address() as AddressInfo).port}/post`;
  expect(new URL(blogURL).origin).not.toBe(new URL(oe.html.match(/src="([^"]+)"/)![1]).origin);
  const reader = await browser.newContext();
  const page = await reader.newPage();
  await page.goto(blogURL);
  const box = await page.locator('#embed iframe').boundingBox();
  expect(box?.width).toBe(480);
  expect(box?.height).toBe(360);
  const frame = await (await page.locator('#embed iframe').elementHandle())!.contentFrame();
  expect(frame, 'the embed is framed').toBeTruthy();
  await frame!.waitForURL(new RegExp(`/embed/${pub.slug}\\?utm_source=oembed$`));
  await frame!.waitForFunction(() => (document.querySelector('model-viewer') as (HTMLElement & { loaded?: boolean }) | null)?.loaded === true, undefined, {
    timeout: 90_000,
  });
  await reader.close();
  blog.close();

  // Unpublished: the provider has nothing for this URL any more.
  await api.call('delete', `/api/publications/${pub.id}`);
  expect((await request.get(endpoint.href)).status()).toBe(404);
});
