import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { startBeacons } from './beacons';

const slug = 'AbCdEfGhIjKlMnOp1234';

interface Sent {
  v: number;
  slug: string;
  viewer: string;
  token: string;
  arm?: string;
  events: { t: string; variant?: string; hotspot?: string; ms?: number }[];
}

const token = '1893456000.AAAAAAAAAAAAAAAAAAAAAA';

function setup(search = '', gated = false, arm = '') {
  window.history.replaceState(null, '', `/v/${slug}${search}`);
  document.head.innerHTML = `<meta name="p3d-view-token" content="${token}">${arm ? `<meta name="p3d-arm" content="${arm}">` : ''}`;
  document.body.innerHTML = `<model-viewer id="viewer"${gated ? ' data-gated' : ''}></model-viewer><a class="p3d-buy" href="/v/${slug}/go/l1">Buy</a>`;
  const sent: Sent[] = [];
  const viewer = document.getElementById('viewer');
  const handle = startBeacons({
    viewer,
    send: (url, body) => {
      expect(url).toBe('/t');
      sent.push(JSON.parse(body) as Sent);
      return true;
    },
  });
  return { sent, viewer: viewer as HTMLElement, handle };
}

describe('public viewer beacons', () => {
  beforeEach(() => {
    window.localStorage.clear();
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('sends the view at once with a stored first-party viewer id and tags buy links', () => {
    const { sent } = setup('?variant=v2&utm_source=insta');
    expect(sent).toHaveLength(1);
    expect(sent[0].v).toBe(1);
    expect(sent[0].slug).toBe(slug);
    expect(sent[0].token).toBe(token);
    expect(sent[0].events).toEqual([expect.objectContaining({ t: 'view', variant: 'v2' })]);
    expect(sent[0].viewer).toMatch(/^[a-f0-9]{32}$/);
    expect(sent[0].arm, 'a page outside an experiment names no arm').toBeUndefined();
    expect(window.localStorage.getItem('p3d.viewer')).toBe(sent[0].viewer);
    expect(document.cookie).toBe('');
    expect(document.querySelector<HTMLAnchorElement>('a.p3d-buy')?.getAttribute('href')).toBe(
      `/v/${slug}/go/l1?vid=${sent[0].viewer}`,
    );
    // A second page load is the same shopper.
    const again = setup();
    expect(again.sent[0].viewer).toBe(sent[0].viewer);
  });

  it('takes the experiment cookie the page set as the viewer id, so the server finds the same arm (issue 52)', () => {
    window.localStorage.setItem('p3d.viewer', 'an-older-stored-viewer-id');
    document.cookie = 'p3d_vid=Zx9_abcdefghijklmnopqr; path=/';
    try {
      const { sent } = setup('', false, '0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b');
      expect(sent[0].viewer).toBe('Zx9_abcdefghijklmnopqr');
      expect(sent[0].arm).toBe('0193a1b2-7c3d-7e4f-8a5b-6c7d8e9f0a1b');
      expect(window.localStorage.getItem('p3d.viewer')).toBe('Zx9_abcdefghijklmnopqr');
      expect(document.querySelector<HTMLAnchorElement>('a.p3d-buy')?.getAttribute('href')).toBe(`/v/${slug}/go/l1?vid=Zx9_abcdefghijklmnopqr`);
    } finally {
      document.cookie = 'p3d_vid=; expires=Thu, 01 Jan 1970 00:00:00 GMT; path=/';
    }
    expect(document.cookie).toBe('');
  });

  it('records the first user camera change, variants and hotspots from the page events', () => {
    const { sent, viewer, handle } = setup();
    viewer.dispatchEvent(new CustomEvent('camera-change', { detail: { source: 'none' } }));
    viewer.dispatchEvent(new CustomEvent('camera-change', { detail: { source: 'user-interaction' } }));
    viewer.dispatchEvent(new CustomEvent('camera-change', { detail: { source: 'user-interaction' } }));
    viewer.dispatchEvent(new CustomEvent('p3d:variant', { detail: { variant: 'v3' } }));
    viewer.dispatchEvent(new CustomEvent('p3d:hotspot', { detail: { hotspot: 'h1' } }));
    viewer.dispatchEvent(new CustomEvent('p3d:hotspot', { detail: { hotspot: '<img>' } }));
    handle?.flush();
    expect(sent[1].events.map((e) => e.t)).toEqual(['interact', 'variant', 'hotspot']);
    expect(sent.every((b) => b.token === token)).toBe(true); // every batch carries the page's token
  });

  it('sends only the view, under an unstored id, with Do-Not-Track or GPC', () => {
    Object.defineProperty(navigator, 'globalPrivacyControl', { value: true, configurable: true });
    const { sent, viewer, handle } = setup();
    delete (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
    viewer.dispatchEvent(new CustomEvent('camera-change', { detail: { source: 'user-interaction' } }));
    handle?.flush();
    expect(sent).toHaveLength(1);
    expect(sent[0].events.map((e) => e.t)).toEqual(['view']);
    expect(window.localStorage.getItem('p3d.viewer')).toBeNull();
  });

  it('does not count visible time while the email gate covers the model', () => {
    let now = 1_000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    const { sent, viewer } = setup('', true);
    now += 30_000; // 30 s in front of the gate
    window.dispatchEvent(new Event('pagehide'));
    expect(sent.flatMap((b) => b.events).filter((e) => e.t === 'visible')).toEqual([]);
    viewer.removeAttribute('data-gated');
    viewer.dispatchEvent(new CustomEvent('p3d:gate-open'));
    now += 12_000; // 12 s with the model in view
    window.dispatchEvent(new Event('pagehide'));
    const visible = sent.flatMap((b) => b.events).filter((e) => e.t === 'visible');
    expect(visible.reduce((n, e) => n + (e.ms ?? 0), 0)).toBe(12_000);
  });
});
