import { describe, expect, it } from 'vitest';
import {
  allowedMaterials,
  breaksLeatherRule,
  clickXY,
  exposureValue,
  formatExposure,
  linksFor,
  nextHotspotTitle,
  openingVariant,
  parseConfig,
  parsePresets,
  parsePrice,
  previewLink,
  type PurchaseLink,
} from './configurator-rules';

describe('configurator rules', () => {
  it('enforces Leather excludes Fabric on the whole model and on parts', () => {
    expect(breaksLeatherRule('leather-tan')).toBe(false);
    expect(breaksLeatherRule('leather-tan', { Seat: 'fabric-grey' })).toBe(true);
    expect(breaksLeatherRule('original', { Seat: 'fabric-grey', Legs: 'leather-tan' })).toBe(true);
    expect(breaksLeatherRule('matte-black', { Seat: 'snow-white' })).toBe(false);
    expect(allowedMaterials(['fabric-grey'])).not.toContain('leather-tan');
    expect(allowedMaterials(['leather-tan'])).not.toContain('fabric-grey');
    expect(allowedMaterials(['original'])).toEqual(['original', 'matte-black', 'snow-white', 'leather-tan', 'fabric-grey']);
  });

  it('reads prices: blank clears, two decimals at most, never negative', () => {
    expect(parsePrice('')).toBeNull();
    expect(parsePrice(' 49.99 ')).toBe(49.99);
    expect(parsePrice('12')).toBe(12);
    expect(parsePrice('-1')).toBeUndefined();
    expect(parsePrice('1.999')).toBeUndefined();
    expect(parsePrice('abc')).toBeUndefined();
  });

  it("shows a variant its own links, else the product's (a deleted per-variant list falls back)", () => {
    const l = (id: string, variantId = ''): PurchaseLink => ({ id, url: 'https://x.com', variantId, platform: null });
    const links = [l('l1'), l('l2', 'v2'), l('l3')];
    expect(linksFor(links, 'v2').map((x) => x.id)).toEqual(['l2']);
    expect(linksFor(links, 'v3').map((x) => x.id)).toEqual(['l1', 'l3']);
  });

  it('prepends https:// and gives the chip while typing; unparsable text gets none', () => {
    expect(previewLink('amazon.com/dp/B01')).toMatchObject({ url: 'https://amazon.com/dp/B01', platform: { key: 'amazon', label: 'Amazon' } });
    expect(previewLink('www.etsy.com/listing/1').platform).toMatchObject({ key: 'etsy', shortUrl: 'etsy.com/listing/1' });
    expect(previewLink('not a url').platform).toBeNull();
  });

  it('names hotspots Point N after the highest id and maps a click to x/y 0–1', () => {
    expect(nextHotspotTitle([])).toBe('Point 1');
    expect(nextHotspotTitle([{ id: 'h4' } as never, { id: 'h2' } as never])).toBe('Point 5');
    expect(clickXY(150, 50, { left: 100, top: 0, width: 100, height: 200 })).toEqual({ x: 0.5, y: 0.25 });
    expect(clickXY(500, -5, { left: 100, top: 0, width: 100, height: 200 })).toEqual({ x: 1, y: 0 });
  });

  it('reads a product configuration defensively, with the Default variant when none came', () => {
    const c = parseConfig({ variants: 'x', hotspots: [{ id: 'h1', position: [1, 2, 3], normal: [0, 1, 0], title: 'Point 1' }], presets: { autospin: false } });
    expect(c.variants).toEqual([{ id: 'v1', name: 'Default', material: 'original', parts: {}, sku: '', price: null, currency: '' }]);
    expect(c.hotspots[0]).toMatchObject({ position: [1, 2, 3], x: 0.5, y: 0.5 });
    expect(c.presets).toEqual({
      lighting: 'Studio',
      background: 'Transparent',
      backgroundColor: '#FFFFFF',
      cameraOrbit: '0deg 75deg 118%',
      autospin: false,
      exposure: 1,
      poster: 'model',
      defaultVariantId: '',
    });
  });

  it('opens a product without a chosen camera on the framed default, and keeps a saved one (issue 29 item 19)', () => {
    expect(parseConfig({ presets: { cameraOrbit: '0deg 75deg 105%' } }).presets.cameraOrbit).toBe('0deg 75deg 118%');
    expect(parseConfig({ presets: { cameraOrbit: '0.5rad 1.2rad 3.4m' } }).presets.cameraOrbit).toBe('0.5rad 1.2rad 3.4m');
  });

  it('reads exposure, poster and the opening variant (issue 52); presets from before them are neutral', () => {
    expect(parsePresets({ exposure: 1.4, poster: 'none', defaultVariantId: 'v2' })).toMatchObject({ exposure: 1.4, poster: 'none', defaultVariantId: 'v2' });
    expect(parsePresets({ exposure: 1.234 }).exposure).toBe(1.234);
    for (const raw of [{}, { exposure: 0, poster: '' }, { exposure: '1.4', poster: 'spinner', defaultVariantId: 7 }]) {
      expect(parsePresets(raw)).toMatchObject({ exposure: 1, poster: 'model', defaultVariantId: '' });
    }
  });

  it("keeps the exposure slider's value a number on its steps and within 0.25–2", () => {
    expect(exposureValue('1.4')).toBe(1.4);
    expect(exposureValue('1.4000000000000001')).toBe(1.4);
    expect(exposureValue('3')).toBe(2);
    expect(exposureValue('0.1')).toBe(0.25);
    expect(exposureValue('abc')).toBe(1);
    expect(formatExposure(1)).toBe('1.00');
    expect(formatExposure(0.25)).toBe('0.25');
    expect(formatExposure(1.4)).toBe('1.40');
  });

  it('opens on the chosen variant while it exists, else the first', () => {
    const vs = [{ id: 'v1' }, { id: 'v2' }];
    expect(openingVariant(vs, 'v2')?.id).toBe('v2');
    expect(openingVariant(vs, '')?.id).toBe('v1');
    expect(openingVariant(vs, 'v9')?.id).toBe('v1');
    expect(openingVariant([], 'v2')).toBeUndefined();
  });
});
