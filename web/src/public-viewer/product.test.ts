import { describe, expect, it, vi } from 'vitest';

vi.mock('./viewer', () => ({}));

/** The page as the Go template renders it (two variants, one hotspot, the email gate). */
function page(requireEmail: boolean): string {
  const data = {
    slug: 'AAAAAAAAAAAAAAAA',
    modelUrl: '/v/A/model.glb?v=t1',
    defaultVariant: 'v1',
    allowDeepLinks: true,
    requireEmail,
    leadUrl: '/v/AAAAAAAAAAAAAAAA/lead',
    lighting: 'Neutral',
    variants: [
      { id: 'v1', name: 'Default', sku: '', price: '', arUrl: '/v/A/ar/v1.glb', usdzUrl: '/v/A/ar/v1.usdz', links: [{ href: '/v/A/go/l1', label: 'Amazon', key: 'amazon', accent: '#FF9900' }] },
      { id: 'v2', name: 'Black', sku: '<b>S-2</b>', price: 'INR 899.00', amount: 899, currency: 'INR', arUrl: '/v/A/ar/v2.glb', usdzUrl: '/v/A/ar/v2.usdz', links: [{ href: '/v/A/go/l2', label: 'Etsy', key: 'etsy', accent: '#F1641E' }] },
    ],
  };
  return `${requireEmail ? '<div id="gate-wrap"><img id="gate-teaser" src="/v/A/teaser.jpg" alt=""><form id="gate"><input id="gate-email"><input type="checkbox" id="gate-consent"><p id="gate-error" hidden></p><button type="submit">Go</button></form></div>' : ''}
<div class="p3d-stage"><model-viewer id="viewer"${requireEmail ? ' data-gated' : ''} data-src="/v/A/model.glb" data-ios-src="/v/A/ar/v1.usdz"${requireEmail ? '' : ' ios-src="/v/A/ar/v1.usdz"'} data-backdrop="Solid Color" data-background-color="#112233">
<button class="p3d-hotspot" data-hotspot="h1"></button></model-viewer></div>
<section class="p3d-panel"><button class="p3d-variant" data-variant="v1" aria-pressed="true"></button><button class="p3d-variant" data-variant="v2" aria-pressed="false"></button>
<p id="price" hidden></p><p id="sku" hidden><span id="sku-value"></span></p><div id="buy"><a class="p3d-buy" href="/v/A/go/l1" data-accent="#FF9900">Amazon</a></div><a id="ar-file" href="/v/A/ar/v1.glb"></a></section>
<script type="application/json" id="p3d-product">${JSON.stringify(data)}</script>`;
}

async function load(requireEmail: boolean) {
  vi.resetModules();
  document.body.innerHTML = page(requireEmail);
  await import('./product');
  return document.getElementById('viewer') as HTMLElement & { variantName: string | null };
}

const notReady = () => new Response('This 3D file is being prepared. Please try again in a moment.\n', { status: 503, headers: { 'Retry-After': '10' } });

describe('product page script', () => {
  it('shows the page model while the variant file is being prepared, then the variant file', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = vi.fn().mockResolvedValueOnce(notReady()).mockResolvedValueOnce(notReady()).mockResolvedValue(new Response(null, { status: 200 }));
      vi.stubGlobal('fetch', fetchMock);
      const viewer = await load(false);
      viewer.dataset.src = '/v/A/ar/v1.glb';
      viewer.setAttribute('src', '/v/A/ar/v1.glb');
      viewer.dispatchEvent(new Event('error'));
      await vi.advanceTimersByTimeAsync(0);
      expect(fetchMock).toHaveBeenCalledWith('/v/A/ar/v1.glb', { method: 'HEAD' });
      expect(viewer.getAttribute('src')).toBe('/v/A/model.glb?v=t1');
      await vi.advanceTimersByTimeAsync(10_000); // Retry-After: still not ready
      expect(viewer.getAttribute('src')).toBe('/v/A/model.glb?v=t1');
      await vi.advanceTimersByTimeAsync(10_000);
      expect(viewer.getAttribute('src')).toBe('/v/A/ar/v1.glb');
      expect(fetchMock).toHaveBeenCalledTimes(3);
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });

  it('leaves an iPhone Quick Look to the phone while the USDZ is being prepared', async () => {
    vi.useFakeTimers();
    try {
      const fetchMock = vi.fn().mockResolvedValueOnce(notReady()).mockResolvedValue(new Response(null, { status: 200 }));
      vi.stubGlobal('fetch', fetchMock);
      const viewer = await load(false);
      const { wireNotReady } = await import('./product');
      wireNotReady(viewer, { slug: 'A', variants: [], defaultVariant: 'v1', allowDeepLinks: false, requireEmail: false, leadUrl: '', lighting: '' }, true);
      await vi.advanceTimersByTimeAsync(0);
      expect(fetchMock).toHaveBeenCalledWith('/v/A/ar/v1.usdz', { method: 'HEAD' });
      expect(viewer.hasAttribute('ios-src')).toBe(false);
      await vi.advanceTimersByTimeAsync(10_000);
      expect(viewer.getAttribute('ios-src')).toBe('/v/A/ar/v1.usdz');
    } finally {
      vi.useRealTimers();
      vi.unstubAllGlobals();
    }
  });

  it('hides "Download the 3D file for AR" (.glb) on an iPhone or iPad, not elsewhere (P21)', async () => {
    await load(false);
    const { wireARFile } = await import('./product');
    const link = document.getElementById('ar-file');
    expect(link).not.toBeNull();
    wireARFile(link, false);
    expect(link!.hidden).toBe(false);
    wireARFile(link, true);
    expect(link!.hidden).toBe(true);
  });

  it('switches variant: price, SKU as text, the variant links, AR file, URL and a p3d:variant event', async () => {
    const viewer = await load(false);
    const seen: string[] = [];
    viewer.addEventListener('p3d:variant', (e) => seen.push((e as CustomEvent<{ variant: string }>).detail.variant));
    (document.querySelector('[data-variant="v2"].p3d-variant') as HTMLButtonElement).click();
    expect(seen).toEqual(['v2']);
    expect(viewer.getAttribute('variant-name')).toBe('v2');
    expect(document.getElementById('price')?.textContent).toBe('₹899'); // issue 29 item 20: not "INR 899.00"
    expect(document.getElementById('sku')?.hidden).toBe(false);
    expect(document.getElementById('sku-value')?.textContent).toBe('<b>S-2</b>');
    expect(document.querySelector('#sku-value b')).toBeNull();
    const links = [...document.querySelectorAll<HTMLAnchorElement>('#buy .p3d-buy')].map((a) => a.getAttribute('href'));
    expect(links).toEqual(['/v/A/go/l2']);
    expect(document.getElementById('ar-file')?.getAttribute('href')).toBe('/v/A/ar/v2.glb');
    // The variant's own GLB is what the viewer (and Scene Viewer) loads.
    expect(viewer.dataset.src).toBe('/v/A/ar/v2.glb');
    // iPhones get the variant's server-built USDZ (issue 32).
    expect(viewer.getAttribute('ios-src')).toBe('/v/A/ar/v2.usdz');
    expect(new URL(window.location.href).searchParams.get('variant')).toBe('v2');
    expect(viewer.style.background).not.toBe('');
  });

  it('reports hotspot clicks', async () => {
    const viewer = await load(false);
    const seen: unknown[] = [];
    viewer.addEventListener('p3d:hotspot', (e) => seen.push((e as CustomEvent).detail));
    (document.querySelector('.p3d-hotspot') as HTMLButtonElement).click();
    expect(seen).toEqual([{ hotspot: 'h1' }]);
  });

  it('keeps the model behind the email gate until the server accepts the email', async () => {
    const token = `${Math.floor(Date.now() / 1000) + 86_400}.AAAAAAAAAAAAAAAAAAAAAA`;
    const fetchMock = vi.fn().mockResolvedValue(new Response(JSON.stringify({ gateToken: token }), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const viewer = await load(true);
    const leads: Event[] = [];
    viewer.addEventListener('p3d:lead', (e) => leads.push(e));
    const opened: Event[] = [];
    viewer.addEventListener('p3d:gate-open', (e) => opened.push(e));
    expect(viewer.hasAttribute('src')).toBe(false);
    expect((document.querySelector('.p3d-stage') as HTMLElement).hidden).toBe(true);
    (document.getElementById('gate-email') as HTMLInputElement).value = 'shopper@example.com';
    const form = document.getElementById('gate') as HTMLFormElement;
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    expect(document.getElementById('gate-error')?.textContent).toBe('Please tick the box to agree before continuing.');
    expect(fetchMock).not.toHaveBeenCalled();
    (document.getElementById('gate-consent') as HTMLInputElement).checked = true;
    form.dispatchEvent(new Event('submit', { cancelable: true }));
    // The model URLs carry the token the gate answered (the server refuses them without it).
    await vi.waitFor(() => expect(viewer.getAttribute('src')).toBe(`/v/A/model.glb?gt=${token}`));
    expect(viewer.getAttribute('ios-src')).toBe(`/v/A/ar/v1.usdz?gt=${token}`);
    expect(document.getElementById('ar-file')?.getAttribute('href')).toBe(`/v/A/ar/v1.glb?gt=${token}`);
    (document.querySelector('[data-variant="v2"].p3d-variant') as HTMLButtonElement).click();
    expect(viewer.getAttribute('src')).toBe(`/v/A/ar/v2.glb?gt=${token}`);
    expect(JSON.parse(fetchMock.mock.calls[0][1].body as string)).toEqual({ email: 'shopper@example.com', consent: true, variantId: '', surface: 'page' });
    expect(leads).toHaveLength(1);
    // The beacons' visible-time clock starts only now (beacons.ts).
    expect(opened).toHaveLength(1);
    expect(viewer.hasAttribute('data-gated')).toBe(false);
    // The card goes with the blurred teaser behind it (issue 29 item 19).
    expect(document.getElementById('gate-wrap')?.hidden).toBe(true);
    vi.unstubAllGlobals();
  });

  it('shows the card alone when the teaser cannot load, never a broken image', async () => {
    await load(true);
    const teaser = document.getElementById('gate-teaser') as HTMLImageElement;
    expect(teaser.hidden).toBe(false);
    teaser.dispatchEvent(new Event('error'));
    expect(teaser.hidden).toBe(true);
    expect(document.getElementById('gate-wrap')?.hidden).toBe(false);
  });
});
