import { DEFAULT_CAMERA_ORBIT } from '../../components/model-viewer/scene-graph';
import { detectPlatform, normalizeLinkUrl, type LinkPlatform } from './link-platform';

/*
 * The product configuration the configurator edits (spec §2, §3, §5, §6): variants,
 * hotspots, purchase links and presets, as GET /api/products/{id} answers them. The server
 * validates everything again; these rules only decide what the screen offers and says.
 */

export interface Variant {
  id: string;
  name: string;
  material: string;
  /** Part name → material (Pro / trial: part-type options). */
  parts: Record<string, string>;
  sku: string;
  price: number | null;
  currency: string;
}

export interface Hotspot {
  id: string;
  position: [number, number, number];
  normal: [number, number, number];
  x: number;
  y: number;
  title: string;
  text: string;
}

export interface PurchaseLink {
  id: string;
  url: string;
  /** '' = a product-level link. */
  variantId: string;
  platform: LinkPlatform | null;
}

export interface Presets {
  lighting: string;
  background: string;
  backgroundColor: string;
  cameraOrbit: string;
  autospin: boolean;
  /** model-viewer's exposure, EXPOSURE_MIN–EXPOSURE_MAX (1 is neutral). */
  exposure: number;
  /** What the public page shows while the model loads. */
  poster: Poster;
  /** The variant the public page opens on ('' = the first). */
  defaultVariantId: string;
}

/** "model": the model's picture while it loads; "none": the loading bar only. */
export type Poster = 'model' | 'none';

export interface ProductConfig {
  variants: Variant[];
  hotspots: Hotspot[];
  links: PurchaseLink[];
  presets: Presets;
}

/** The Default variant every product starts with (spec §3). */
export const DEFAULT_VARIANT_ID = 'v1';
/** Material keys in menu order; 'original' is the model's own material. */
export const MATERIALS = ['original', 'matte-black', 'snow-white', 'leather-tan', 'fabric-grey'] as const;
/** What the merchant reads (issue 50 P7): the keys stay the API's, the words are human. */
export const MATERIAL_LABEL: Record<string, string> = {
  original: 'Original',
  'matte-black': 'Matte black',
  'snow-white': 'Snow white',
  'leather-tan': 'Leather tan',
  'fabric-grey': 'Fabric grey',
};
export const LIGHTINGS = ['Studio', 'Outdoor', 'Dramatic', 'Neutral'] as const;
export const BACKGROUNDS = ['Transparent', 'Solid Color', 'Gradient'] as const;
export const CONFIG_TABS = ['Materials', 'Variants', 'Hotspots', 'Links'] as const;
export type ConfigTab = (typeof CONFIG_TABS)[number];

/** The rule shown as text under the materials (spec §2). */
export const LEATHER_RULE = 'Leather excludes Fabric';

/**
 * Whether the leather/fabric rule concerns this product (issue 50 P7): only when one of its
 * variants uses leather or fabric, on the whole model or on a part. A vase in matte black is
 * not told about leather.
 */
export function leatherRuleApplies(variants: { material: string; parts: Record<string, string> }[]): boolean {
  return variants.some((v) => [v.material, ...Object.values(v.parts ?? {})].some((m) => m === 'leather-tan' || m === 'fabric-grey'));
}
/** Spec §6, word for word. */
export const PART_TYPES_PRO_TEXT = 'Part type options are available on Pro. Upgrade your plan to enable part-specific configuration.';
/** Spec §8, word for word. */
export const NO_LINKS_TEXT = 'No links added yet. Add your first purchase link below.';

export const DEFAULT_PRESETS: Presets = {
  lighting: 'Studio',
  background: 'Transparent',
  backgroundColor: '#FFFFFF',
  cameraOrbit: DEFAULT_CAMERA_ORBIT,
  autospin: true,
  exposure: 1,
  poster: 'model',
  defaultVariantId: '',
};

/** The exposure slider's range (catalog.MinExposure/MaxExposure; the server refuses others). */
export const EXPOSURE_MIN = 0.25;
export const EXPOSURE_MAX = 2;
export const EXPOSURE_STEP = 0.05;

/** The "While the model loads" choices, in menu order. */
export const POSTERS: { value: Poster; label: string }[] = [
  { value: 'model', label: 'Picture of the model' },
  { value: 'none', label: 'Loading bar only' },
];

/** A slider's value as a number on the slider's steps (no 1.4000000000000001), within range. */
export function exposureValue(input: string | number): number {
  const n = Number(input);
  if (!Number.isFinite(n) || n <= 0) return DEFAULT_PRESETS.exposure;
  return Math.min(EXPOSURE_MAX, Math.max(EXPOSURE_MIN, Math.round(n * 100) / 100));
}

/** An exposure as the screen shows it: "1.00", "1.40", "0.25". */
export function formatExposure(n: number): string {
  return n.toFixed(2);
}

/** The variant a page opens on: the chosen one when it still exists, else the first. */
export function openingVariant<V extends { id: string }>(variants: V[], defaultVariantId: string): V | undefined {
  return variants.find((v) => v.id === defaultVariantId) ?? variants[0];
}

/**
 * The default every product was stored with before the framed one (model-viewer's own 105 %): it
 * means "no camera chosen", so it opens on the framed default like the public page does
 * (catalog.PublicCameraOrbit). A camera the merchant saved is kept as it is.
 */
export const LEGACY_DEFAULT_CAMERA_ORBIT = '0deg 75deg 105%';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown, d: number): number => (typeof v === 'number' && Number.isFinite(v) ? v : d);
const vec = (v: unknown): [number, number, number] =>
  Array.isArray(v) && v.length === 3 && v.every((n) => typeof n === 'number') ? [v[0], v[1], v[2]] : [0, 0, 0];
const list = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter((x) => x && typeof x === 'object') : []);

export function parseVariant(raw: unknown): Variant {
  const r = (raw ?? {}) as Record<string, unknown>;
  const parts: Record<string, string> = {};
  if (r.parts && typeof r.parts === 'object') for (const [k, v] of Object.entries(r.parts)) if (typeof v === 'string') parts[k] = v;
  return {
    id: str(r.id),
    name: str(r.name),
    material: str(r.material) || 'original',
    parts,
    sku: str(r.sku),
    price: typeof r.price === 'number' && Number.isFinite(r.price) ? r.price : null,
    currency: str(r.currency),
  };
}

export function parseHotspot(raw: unknown): Hotspot {
  const r = (raw ?? {}) as Record<string, unknown>;
  return { id: str(r.id), position: vec(r.position), normal: vec(r.normal), x: num(r.x, 0.5), y: num(r.y, 0.5), title: str(r.title), text: str(r.text) };
}

export function parseLink(raw: unknown): PurchaseLink {
  const r = (raw ?? {}) as Record<string, unknown>;
  const p = r.platform as Record<string, unknown> | null | undefined;
  return {
    id: str(r.id),
    url: str(r.url),
    variantId: str(r.variantId),
    platform: p && typeof p === 'object' ? { key: str(p.key), label: str(p.label), accent: str(p.accent), shortUrl: str(p.shortUrl) } : null,
  };
}

export function parsePresets(raw: unknown): Presets {
  const r = (raw ?? {}) as Record<string, unknown>;
  return {
    lighting: str(r.lighting) || DEFAULT_PRESETS.lighting,
    background: str(r.background) || DEFAULT_PRESETS.background,
    backgroundColor: str(r.backgroundColor) || DEFAULT_PRESETS.backgroundColor,
    cameraOrbit: str(r.cameraOrbit) && str(r.cameraOrbit) !== LEGACY_DEFAULT_CAMERA_ORBIT ? str(r.cameraOrbit) : DEFAULT_PRESETS.cameraOrbit,
    autospin: typeof r.autospin === 'boolean' ? r.autospin : DEFAULT_PRESETS.autospin,
    // Presets stored before issue 52 have no exposure (or 0) and no poster: neutral, the picture.
    // A saved exposure is kept as it is (the API takes any within range, not only the slider's steps).
    exposure: typeof r.exposure === 'number' && Number.isFinite(r.exposure) && r.exposure > 0 ? r.exposure : DEFAULT_PRESETS.exposure,
    poster: r.poster === 'none' ? 'none' : 'model',
    defaultVariantId: str(r.defaultVariantId),
  };
}

export function parseConfig(raw: unknown): ProductConfig {
  const r = (raw ?? {}) as Record<string, unknown>;
  const variants = list(r.variants).map(parseVariant);
  return {
    variants: variants.length ? variants : [{ id: DEFAULT_VARIANT_ID, name: 'Default', material: 'original', parts: {}, sku: '', price: null, currency: '' }],
    hotspots: list(r.hotspots).map(parseHotspot),
    links: list(r.links).map(parseLink),
    presets: parsePresets(r.presets),
  };
}

/** Every material a variant uses: the whole-model one and each part's. */
function materialsOf(material: string, parts: Record<string, string>): string[] {
  return [material, ...Object.values(parts)];
}

/** "Leather excludes Fabric": a variant may not combine leather-tan and fabric-grey anywhere. */
export function breaksLeatherRule(material: string, parts: Record<string, string> = {}): boolean {
  const used = materialsOf(material, parts);
  return used.includes('leather-tan') && used.includes('fabric-grey');
}

/**
 * Which materials can still be picked for one slot (the whole model or one part) without
 * breaking the rule, given the variant's other choices.
 */
export function allowedMaterials(others: string[]): string[] {
  return MATERIALS.filter((m) => !(m === 'leather-tan' && others.includes('fabric-grey')) && !(m === 'fabric-grey' && others.includes('leather-tan')));
}

/** Price input → number or null (blank); undefined when the text is not a price. */
export function parsePrice(input: string): number | null | undefined {
  const t = input.trim();
  if (t === '') return null;
  if (!/^\d{1,9}(\.\d{1,2})?$/.test(t)) return undefined;
  return Number(t);
}

/** The links a shopper sees for a variant: its own list when it has one, else the product's. */
export function linksFor(links: PurchaseLink[], variantId: string): PurchaseLink[] {
  const own = links.filter((l) => l.variantId === variantId);
  return own.length ? own : links.filter((l) => l.variantId === '');
}

/** What the Links tab shows while typing: the normalised URL and its chip (null = no chip). */
export function previewLink(input: string): { url: string; platform: LinkPlatform | null } {
  return { url: normalizeLinkUrl(input), platform: detectPlatform(input) };
}

/** The next default hotspot title (the server gives the same: "Point N" with N = the id number). */
export function nextHotspotTitle(hotspots: Hotspot[]): string {
  const max = hotspots.reduce((m, h) => Math.max(m, Number(/^h(\d+)$/.exec(h.id)?.[1] ?? 0)), 0);
  return `Point ${max + 1}`;
}

/** A click's place in the viewer as the spec's x/y (0–1, clamped). */
export function clickXY(clientX: number, clientY: number, rect: { left: number; top: number; width: number; height: number }): { x: number; y: number } {
  const clamp = (v: number) => Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0.5));
  return { x: clamp((clientX - rect.left) / rect.width), y: clamp((clientY - rect.top) / rect.height) };
}

/** model-viewer's hotspot attributes: "x y z" in metres. */
export function vecAttr(v: [number, number, number]): string {
  return v.map((n) => `${n}m`).join(' ');
}

/** The viewer's background for a preset (the public page uses the same presets). */
export function backgroundStyle(p: Presets): string {
  if (p.background === 'Solid Color') return p.backgroundColor;
  if (p.background === 'Gradient') return `linear-gradient(180deg, ${p.backgroundColor} 0%, #E2E8F0 100%)`;
  return 'transparent';
}
