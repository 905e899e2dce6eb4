import { CURRENCIES, defaultCurrency, formatPrice } from '../../lib/money';
import { useStoreDefaultCurrency } from '../settings/store-settings-api';
import { useEffect, useId, useRef, useState, type PointerEvent as ReactPointerEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconBox, IconSparkle } from '../../components/icons';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import type { ModelViewerElement } from '../../components/model-viewer/model-viewer-element';
import { sceneParts } from '../../components/model-viewer/scene-graph';
import { errorMessage } from '../../lib/api';
import { environmentFor } from '../../public-viewer/environments';
import { useGetSubscriptionQuery } from '../subscription/subscription-api';
import {
  useAddLinkMutation,
  useAddVariantMutation,
  useChangeVariantMutation,
  useMoveHotspotMutation,
  usePlaceHotspotMutation,
  useRemoveHotspotMutation,
  useRemoveLinkMutation,
  useRemoveVariantMutation,
  useSetPresetsMutation,
} from './configurator-api';
import {
  allowedMaterials,
  backgroundStyle,
  BACKGROUNDS,
  breaksLeatherRule,
  clickXY,
  CONFIG_TABS,
  DEFAULT_VARIANT_ID,
  LEATHER_RULE,
  leatherRuleApplies,
  LIGHTINGS,
  linksFor,
  MATERIAL_LABEL,
  NO_LINKS_TEXT,
  PART_TYPES_PRO_TEXT,
  openingVariant,
  parsePrice,
  previewLink,
  vecAttr,
  type ConfigTab,
  type Hotspot,
  type Presets,
  type PurchaseLink,
  type Variant,
} from './configurator-rules';
import { ExposureField, PosterField } from './exposure-field';
import type { ProductDetail } from './product-rules';
import { SAVED_MS, useFlag } from '../../lib/use-flag';
import './configurator.css';

/** The parts of model-viewer's API the configurator uses beyond the shared wrapper's. */
export interface ConfigViewerElement extends ModelViewerElement {
  positionAndNormalFromPoint(x: number, y: number): { position: { x: number; y: number; z: number }; normal: { x: number; y: number; z: number } } | null;
  updateHotspot(config: { name: string; position?: string; normal?: string }): void;
  getCameraOrbit(): { theta: number; phi: number; radius: number };
}

/** The viewer's current camera as a presets cameraOrbit ("theta phi radius"). */
export function currentOrbit(el: ConfigViewerElement): string {
  const o = el.getCameraOrbit();
  const f = (n: number) => String(Math.round(n * 10000) / 10000);
  return `${f(o.theta)}rad ${f(o.phi)}rad ${f(o.radius)}m`;
}

const round = (n: number) => Math.round(n * 100000) / 100000;
const toVec = (v: { x: number; y: number; z: number }): [number, number, number] => [round(v.x), round(v.y), round(v.z)];

interface ConfiguratorProps {
  product: ProductDetail;
  /** Extra footer buttons (the wizard's Preview and Publish). */
  footer?: ReactNode;
}

/**
 * The product configurator: one component for the wizard's configurator step and the product
 * page's Configurator tab. Every choice is product state on the server (variants, hotspots,
 * links, presets); the preview shows the server's model, whose KHR_materials_variants are named
 * by variant id, so picking a variant switches the preview with model-viewer's variantName.
 */
export function Configurator({ product: p, footer }: ConfiguratorProps) {
  const id = useId();
  const cfg = p.config;
  const [tab, setTab] = useState<ConfigTab>('Materials');
  // The preview opens on the variant the public page opens on.
  const [variantId, setVariantId] = useState(() => openingVariant(cfg.variants, cfg.presets.defaultVariantId)?.id ?? DEFAULT_VARIANT_ID);
  const variant = cfg.variants.find((v) => v.id === variantId) ?? cfg.variants[0];
  const [presets, setPresets] = useState<Presets>(cfg.presets);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, flashSaved] = useFlag(SAVED_MS);
  const [savePresets, { isLoading: saving }] = useSetPresetsMutation();
  const viewer = useRef<ConfigViewerElement | null>(null);
  const [loaded, setLoaded] = useState(0);

  // A fresh server copy of the presets (another tab) replaces the unsaved ones.
  const serverPresets = JSON.stringify(cfg.presets);
  useEffect(() => setPresets(JSON.parse(serverPresets) as Presets), [serverPresets]);

  // Variant, lighting and background are applied imperatively: the shared wrapper does not know them.
  useEffect(() => {
    const el = viewer.current;
    if (!el) return;
    el.setAttribute('variant-name', variant?.id ?? DEFAULT_VARIANT_ID);
    el.setAttribute('environment-image', environmentFor(presets.lighting));
    el.style.background = backgroundStyle(presets);
  }, [variant?.id, presets, loaded]);

  const save = async () => {
    setProblem(null);
    const res = await savePresets({ productId: p.id, ...presets });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The settings could not be saved.'));
    flashSaved();
  };

  return (
    <section className="configurator" aria-label="Configurator">
      <div className="configurator__preview">
        <Preview product={p} variant={variant} presets={presets} viewer={viewer} tab={tab} onLoad={() => setLoaded((n) => n + 1)} onProblem={setProblem} />
        <label className="checkbox">
          <input type="checkbox" checked={presets.autospin} onChange={(e) => setPresets({ ...presets, autospin: e.target.checked })} />
          Autospin
        </label>
      </div>
      <div className="configurator__panel">
        <div className="field">
          <label htmlFor={`${id}-variant`}>Variant</label>
          <select id={`${id}-variant`} value={variant?.id} onChange={(e) => setVariantId(e.target.value)}>
            {cfg.variants.map((v) => (
              <option key={v.id} value={v.id}>
                {v.name}
              </option>
            ))}
          </select>
        </div>
        <div className="tabs" role="tablist" aria-label="Configurator">
          {CONFIG_TABS.map((t) => (
            <button key={t} type="button" role="tab" aria-selected={tab === t} aria-controls={`${id}-panel`} onClick={() => setTab(t)}>
              {t}
            </button>
          ))}
        </div>
        <div id={`${id}-panel`} role="tabpanel" aria-label={tab} className="configurator__tab">
          {tab === 'Materials' && variant && (
            <MaterialsTab product={p} variant={variant} presets={presets} onPresets={setPresets} onPickVariant={setVariantId} viewer={viewer} loaded={loaded} />
          )}
          {tab === 'Variants' && <VariantsTab product={p} onPick={setVariantId} />}
          {tab === 'Hotspots' && <HotspotsTab product={p} />}
          {tab === 'Links' && <LinksTab product={p} />}
        </div>
        {problem && <Alert tone="error">{problem}</Alert>}
        <div className="btn-row configurator__footer">
          <button type="button" className="btn btn--primary" onClick={save} disabled={saving}>
            {saved ? 'Saved.' : saving ? 'Saving…' : 'Save'}
          </button>
          {footer}
        </div>
      </div>
    </section>
  );
}

interface PreviewProps {
  product: ProductDetail;
  variant: Variant | undefined;
  presets: Presets;
  viewer: React.RefObject<ConfigViewerElement | null>;
  tab: ConfigTab;
  onLoad: () => void;
  onProblem: (m: string | null) => void;
}

/** The 3D preview; on the Hotspots tab a click on the model places a hotspot and dragging one moves it. */
function Preview({ product: p, variant, presets, viewer, tab, onLoad, onProblem }: PreviewProps) {
  const [place] = usePlaceHotspotMutation();
  const [move] = useMoveHotspotMutation();
  const down = useRef<{ x: number; y: number } | null>(null);
  const dragging = useRef<{ hotspot: Hotspot; moved: boolean } | null>(null);
  const placing = tab === 'Hotspots';

  if (!p.modelURL) {
    return (
      <div className="card empty-state configurator__empty" data-testid="configurator-no-model">
        <IconBox size={40} />
        <p className="muted">{p.status === 'processing' ? 'Your 3D is building. Keep configuring: the preview appears when it is ready.' : 'This product has no 3D model yet.'}</p>
      </div>
    );
  }

  const pointAt = (clientX: number, clientY: number) => {
    const el = viewer.current;
    if (!el) return null;
    const hit = el.positionAndNormalFromPoint(clientX, clientY);
    if (!hit) return null;
    const rect = el.getBoundingClientRect();
    return { position: toVec(hit.position), normal: toVec(hit.normal), ...clickXY(clientX, clientY, rect) };
  };

  const onPointerDown = (e: ReactPointerEvent) => {
    down.current = { x: e.clientX, y: e.clientY };
  };
  const onPointerUp = async (e: ReactPointerEvent) => {
    const start = down.current;
    down.current = null;
    // A drag turns the model; only a click (little movement) places a hotspot.
    if (!placing || !start || Math.hypot(e.clientX - start.x, e.clientY - start.y) > 6 || dragging.current) return;
    const at = pointAt(e.clientX, e.clientY);
    if (!at) return onProblem('Click on the model itself to place a hotspot.');
    onProblem(null);
    const res = await place({ productId: p.id, ...at });
    if ('error' in res && res.error) onProblem(errorMessage(res.error, 'The hotspot could not be placed.'));
  };

  const startDrag = (h: Hotspot) => (e: ReactPointerEvent<HTMLButtonElement>) => {
    if (!placing) return;
    e.stopPropagation();
    e.currentTarget.setPointerCapture(e.pointerId);
    dragging.current = { hotspot: h, moved: false };
  };
  const drag = (e: ReactPointerEvent<HTMLButtonElement>) => {
    const d = dragging.current;
    if (!d) return;
    e.stopPropagation();
    const at = pointAt(e.clientX, e.clientY);
    if (!at) return;
    d.moved = true;
    viewer.current?.updateHotspot({ name: `hotspot-${d.hotspot.id}`, position: vecAttr(at.position), normal: vecAttr(at.normal) });
  };
  const drop = async (e: ReactPointerEvent<HTMLButtonElement>) => {
    const d = dragging.current;
    dragging.current = null;
    if (!d) return;
    e.stopPropagation();
    const at = d.moved ? pointAt(e.clientX, e.clientY) : null;
    if (!at) return;
    const res = await move({ productId: p.id, hotspotId: d.hotspot.id, ...at });
    if ('error' in res && res.error) onProblem(errorMessage(res.error, 'The hotspot could not be moved.'));
  };

  return (
    <div className={placing ? 'configurator__viewer configurator__viewer--placing' : 'configurator__viewer'} onPointerDown={onPointerDown} onPointerUp={onPointerUp}>
      <ModelViewer
        ref={viewer}
        src={p.modelURL}
        poster={presets.poster === 'none' ? undefined : (p.thumbnailURL ?? undefined)}
        alt={`3D model of ${p.name}${variant ? `, ${variant.name}` : ''}`}
        autoRotate={presets.autospin && !placing}
        ar={false}
        // A number: React 19 sets it as the element's exposure property, so the slider shows live.
        exposure={presets.exposure}
        onLoad={onLoad}
      >
        {p.config.hotspots.map((h) => (
          <button
            key={`${h.id}-${h.position.join(',')}`}
            type="button"
            slot={`hotspot-${h.id}`}
            className="config-hotspot"
            data-position={vecAttr(h.position)}
            data-normal={vecAttr(h.normal)}
            data-visibility-attribute="visible"
            data-hotspot-id={h.id}
            onPointerDown={startDrag(h)}
            onPointerMove={drag}
            onPointerUp={drop}
          >
            <span className="config-hotspot__label">{h.title}</span>
          </button>
        ))}
      </ModelViewer>
      {placing && <p className="muted configurator__hint">Click the model to place a hotspot; drag a hotspot to move it.</p>}
    </div>
  );
}

function MaterialsTab({
  product: p,
  variant,
  presets,
  onPresets,
  onPickVariant,
  viewer,
  loaded,
}: {
  product: ProductDetail;
  variant: Variant;
  presets: Presets;
  onPresets: (p: Presets) => void;
  /** Shows a variant in the preview (the one the page opens on, once chosen). */
  onPickVariant: (id: string) => void;
  viewer: React.RefObject<ConfigViewerElement | null>;
  loaded: number;
}) {
  const id = useId();
  const { data: sub } = useGetSubscriptionQuery();
  const partOptions = sub?.hasPartTypeOption === true;
  const [change, { isLoading }] = useChangeVariantMutation();
  const [problem, setProblem] = useState<string | null>(null);
  const [parts, setParts] = useState<string[]>([]);

  // The parts are the loaded model's named meshes (the reconstructor names them).
  useEffect(() => {
    const el = viewer.current;
    setParts(el && loaded ? sceneParts(el).map((x) => x.name) : []);
  }, [viewer, loaded]);

  const apply = async (material: string, partsMap: Record<string, string>) => {
    setProblem(null);
    // The rule is checked here for a clear message and again by the server (its 400 is shown too).
    if (breaksLeatherRule(material, partsMap)) return setProblem(`${LEATHER_RULE}: a variant cannot combine ${MATERIAL_LABEL['leather-tan']} and ${MATERIAL_LABEL['fabric-grey']}.`);
    const res = await change({ productId: p.id, variantId: variant.id, material, ...(partOptions ? { parts: partsMap } : {}) });
    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The material could not be changed.'));
  };

  const setPart = (part: string, material: string) => {
    const next = { ...variant.parts };
    if (material === 'original') delete next[part];
    else next[part] = material;
    void apply(variant.material, next);
  };

  return (
    <div className="stack">
      <fieldset className="field" disabled={isLoading}>
        <legend>Materials &amp; Colors — {variant.name}</legend>
        <div className="material-grid" role="radiogroup" aria-label="Material">
          {allowedMaterialsWithAll(Object.values(variant.parts)).map(({ key, allowed }) => (
            <label key={key} className={variant.material === key ? 'material-option material-option--on' : 'material-option'} data-material={key}>
              <input type="radio" name={`${id}-mat`} value={key} checked={variant.material === key} disabled={!allowed} onChange={() => void apply(key, variant.parts)} />
              <span className={`swatch swatch--${key}`} aria-hidden="true" />
              {MATERIAL_LABEL[key]}
            </label>
          ))}
        </div>
        {leatherRuleApplies(p.config.variants) && (
          <p className="muted" data-testid="leather-rule">
            {LEATHER_RULE}
          </p>
        )}
      </fieldset>
      <fieldset className="field">
        <legend>Configurable Parts</legend>
        {!partOptions ? (
          <p className="muted" data-testid="part-types-pro">
            {PART_TYPES_PRO_TEXT} <Link to="/workspace/subscription">Upgrade</Link>
          </p>
        ) : parts.length === 0 ? (
          <p className="muted">The parts appear once the model has loaded.</p>
        ) : (
          parts.map((part) => {
            const others = [variant.material, ...Object.entries(variant.parts).filter(([k]) => k !== part).map(([, v]) => v)];
            return (
              <div key={part} className="field field--inline">
                <label htmlFor={`${id}-part-${part}`}>{part}</label>
                <select id={`${id}-part-${part}`} value={variant.parts[part] ?? 'original'} onChange={(e) => setPart(part, e.target.value)} disabled={isLoading}>
                  {allowedMaterials(others).map((m) => (
                    <option key={m} value={m}>
                      {MATERIAL_LABEL[m]}
                    </option>
                  ))}
                </select>
              </div>
            );
          })
        )}
      </fieldset>
      {problem && <Alert tone="error">{problem}</Alert>}
      <ViewerSettings product={p} presets={presets} onPresets={onPresets} onPickVariant={onPickVariant} />
    </div>
  );
}

/**
 * How the public page shows the product (the presets): lighting, background, exposure, what
 * shows while the model loads and the variant it opens on. Saved with the configurator's Save.
 */
function ViewerSettings({
  product: p,
  presets,
  onPresets,
  onPickVariant,
}: {
  product: ProductDetail;
  presets: Presets;
  onPresets: (p: Presets) => void;
  onPickVariant: (id: string) => void;
}) {
  const id = useId();
  const variants = p.config.variants;
  // '' is the first variant: the page follows whichever variant is first.
  const opening = variants.some((v, i) => i > 0 && v.id === presets.defaultVariantId) ? presets.defaultVariantId : '';
  return (
    <fieldset className="field viewer-settings" data-testid="viewer-settings">
      <legend>Viewer settings</legend>
      <div className="field">
        <label htmlFor={`${id}-light`}>Lighting</label>
        <select id={`${id}-light`} value={presets.lighting} onChange={(e) => onPresets({ ...presets, lighting: e.target.value })}>
          {LIGHTINGS.map((l) => (
            <option key={l}>{l}</option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-bg`}>Background</label>
        <select id={`${id}-bg`} value={presets.background} onChange={(e) => onPresets({ ...presets, background: e.target.value })}>
          {BACKGROUNDS.map((b) => (
            <option key={b}>{b}</option>
          ))}
        </select>
        {presets.background !== 'Transparent' && (
          <input type="color" aria-label="Background color" value={presets.backgroundColor.toLowerCase()} onChange={(e) => onPresets({ ...presets, backgroundColor: e.target.value.toUpperCase() })} />
        )}
      </div>
      <ExposureField
        id={`${id}-exposure`}
        value={presets.exposure}
        onChange={(exposure) => onPresets({ ...presets, exposure })}
        rangeClass="viewer-settings__range"
        valueTestId="exposure-value"
        help="How bright the model is: 1.00 is neutral."
      />
      <PosterField id={`${id}-poster`} value={presets.poster} onChange={(poster) => onPresets({ ...presets, poster })} />
      <div className="field">
        <label htmlFor={`${id}-opening`}>Opens on variant</label>
        <select
          id={`${id}-opening`}
          value={opening}
          onChange={(e) => {
            const v = e.target.value;
            onPresets({ ...presets, defaultVariantId: v });
            onPickVariant(v || (variants[0]?.id ?? DEFAULT_VARIANT_ID));
          }}
        >
          {variants.map((v, i) => (
            <option key={v.id} value={i === 0 ? '' : v.id}>
              {i === 0 ? `${v.name} (the first)` : v.name}
            </option>
          ))}
        </select>
      </div>
    </fieldset>
  );
}

/** Every material with whether the rule still allows it next to the variant's part materials. */
function allowedMaterialsWithAll(partMaterials: string[]) {
  const ok = new Set(allowedMaterials(partMaterials));
  return ['original', 'matte-black', 'snow-white', 'leather-tan', 'fabric-grey'].map((key) => ({ key, allowed: ok.has(key) }));
}

function VariantsTab({ product: p, onPick }: { product: ProductDetail; onPick: (id: string) => void }) {
  const [add, { isLoading }] = useAddVariantMutation();
  // A new price starts in the merchant's default currency (Settings → Store), else the one
  // their prices already use, else their locale's. A price keeps its own currency.
  const storeDefault = useStoreDefaultCurrency();
  const fallbackCurrency = storeDefault ?? defaultCurrency(p.config.variants.map((x) => x.currency));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div className="stack">
      <ul className="config-list" aria-label="Variants">
        {p.config.variants.map((v) => (
          <VariantRow key={v.id} productId={p.id} variant={v} fallbackCurrency={fallbackCurrency} />
        ))}
      </ul>
      {problem && <Alert tone="error">{problem}</Alert>}
      <div>
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          disabled={isLoading}
          onClick={async () => {
            setProblem(null);
            const res = await add({ productId: p.id });
            if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The variant could not be added.'));
            if (res.data?.id) onPick(res.data.id);
          }}
        >
          + Add variant
        </button>
      </div>
    </div>
  );
}

function VariantRow({ productId, variant: v, fallbackCurrency }: { productId: string; variant: Variant; fallbackCurrency: string }) {
  const id = useId();
  const [name, setName] = useState(v.name);
  const [sku, setSku] = useState(v.sku);
  const [price, setPrice] = useState(v.price === null ? '' : String(v.price));
  const [currency, setCurrency] = useState(v.currency || fallbackCurrency);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, flashSaved] = useFlag(SAVED_MS);
  const [change, { isLoading }] = useChangeVariantMutation();
  const [remove, { isLoading: removing }] = useRemoveVariantMutation();

  const serverKey = `${v.name}|${v.sku}|${v.price}|${v.currency}`;
  useEffect(() => {
    setName(v.name);
    setSku(v.sku);
    setPrice(v.price === null ? '' : String(v.price));
    setCurrency(v.currency || fallbackCurrency);
  }, [serverKey]); // eslint-disable-line react-hooks/exhaustive-deps
  // The merchant's default arrives after the first render: a variant without a price follows it.
  useEffect(() => {
    if (!v.currency) setCurrency(fallbackCurrency);
  }, [fallbackCurrency]); // eslint-disable-line react-hooks/exhaustive-deps

  const save = async () => {
    setProblem(null);
    const pr = parsePrice(price);
    if (pr === undefined) return setProblem('Enter a price such as 49 or 49.99, or leave it empty.');
    if (!name.trim()) return setProblem('Give the variant a name.');
    const res = await change({ productId, variantId: v.id, name: name.trim(), sku: sku.trim(), price: pr, ...(pr === null ? {} : { currency: currency.trim().toUpperCase() }) });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The variant could not be saved.'));
    flashSaved();
  };
  const del = async () => {
    const res = await remove({ productId, variantId: v.id });
    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The variant could not be deleted.'));
  };

  return (
    <li className="config-item" data-variant-id={v.id}>
      <div className="config-item__row">
        <input aria-label={`Name of ${v.id}`} value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
        <span className="badge">{MATERIAL_LABEL[v.material] ?? v.material}</span>
      </div>
      <div className="config-item__row">
        <label htmlFor={`${id}-sku`}>SKU</label>
        <input id={`${id}-sku`} value={sku} maxLength={64} onChange={(e) => setSku(e.target.value)} placeholder="Optional" />
        <label htmlFor={`${id}-price`}>Price</label>
        <input id={`${id}-price`} value={price} inputMode="decimal" onChange={(e) => setPrice(e.target.value)} placeholder="Optional" className="input--price" />
        <select aria-label="Currency" value={currency} onChange={(e) => setCurrency(e.target.value)} className="input--currency">
          {(CURRENCIES.some((c) => c.code === currency) ? CURRENCIES : [{ code: currency, name: currency }, ...CURRENCIES]).map((c) => (
            <option key={c.code} value={c.code} title={c.name}>
              {c.code}
            </option>
          ))}
        </select>
        {parsePrice(price) != null && (
          <span className="config-item__price-preview" data-testid="price-preview">
            Shoppers see {formatPrice(parsePrice(price) as number, currency)}
          </span>
        )}
      </div>
      <RowActions saveLabel="Save variant" saving={isLoading} saved={saved} onSave={save} deleting={removing} onDelete={v.id === DEFAULT_VARIANT_ID ? undefined : del} />
      {problem && <Alert tone="error">{problem}</Alert>}
    </li>
  );
}

function HotspotsTab({ product: p }: { product: ProductDetail }) {
  const hs = p.config.hotspots;
  return (
    <div className="stack">
      {!p.modelURL && <p className="muted">Hotspots are placed on the model once it is ready.</p>}
      {hs.length === 0 ? (
        <EmptyState variant="inline" icon={<IconSparkle />} title="No hotspots yet." text="Click the model to place one: a point shoppers tap to read about a detail." />
      ) : (
        <ul className="config-list" aria-label="Hotspots">
          {hs.map((h) => (
            <HotspotRow key={h.id} productId={p.id} hotspot={h} />
          ))}
        </ul>
      )}
    </div>
  );
}

function HotspotRow({ productId, hotspot: h }: { productId: string; hotspot: Hotspot }) {
  const [title, setTitle] = useState(h.title);
  const [text, setText] = useState(h.text);
  const [problem, setProblem] = useState<string | null>(null);
  const [saved, flashSaved] = useFlag(SAVED_MS);
  const [move, { isLoading }] = useMoveHotspotMutation();
  const [remove, { isLoading: removing }] = useRemoveHotspotMutation();
  useEffect(() => {
    setTitle(h.title);
    setText(h.text);
  }, [h.title, h.text]);
  const save = async () => {
    setProblem(null);
    const res = await move({ productId, hotspotId: h.id, title: title.trim(), text });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The hotspot could not be saved.'));
    flashSaved();
  };
  const del = async () => {
    const res = await remove({ productId, hotspotId: h.id });
    if ('error' in res && res.error) setProblem(errorMessage(res.error, 'The hotspot could not be deleted.'));
  };
  return (
    <li className="config-item" data-hotspot-id={h.id}>
      <input aria-label={`Title of ${h.id}`} value={title} maxLength={100} onChange={(e) => setTitle(e.target.value)} />
      <textarea aria-label={`Text of ${h.id}`} value={text} maxLength={500} rows={2} onChange={(e) => setText(e.target.value)} placeholder="Optional text" />
      <RowActions saveLabel="Save hotspot" saving={isLoading} saved={saved} onSave={save} deleting={removing} onDelete={del} />
      {problem && <Alert tone="error">{problem}</Alert>}
    </li>
  );
}

/** The Save and Delete buttons under a variant or hotspot row. Save reads
 * "Saved." while `saved` is set (the row's useFlag after a save worked);
 * without onDelete there is no Delete button (the Default variant). */
function RowActions({ saveLabel, saving, saved, onSave, deleting, onDelete }: { saveLabel: string; saving: boolean; saved: boolean; onSave: () => void; deleting: boolean; onDelete?: () => void }) {
  return (
    <div className="btn-row">
      <button type="button" className="btn btn--secondary btn--sm" onClick={onSave} disabled={saving}>
        {saved ? 'Saved.' : saveLabel}
      </button>
      {onDelete && (
        <button type="button" className="btn btn--ghost btn--sm" disabled={deleting} onClick={onDelete}>
          Delete
        </button>
      )}
    </div>
  );
}

function LinkChip({ link }: { link: Pick<PurchaseLink, 'platform' | 'url'> }) {
  if (!link.platform) return null;
  return (
    <span className="link-chip" style={{ borderColor: link.platform.accent, color: link.platform.accent }} data-platform={link.platform.key}>
      {link.platform.label}
    </span>
  );
}

function LinksTab({ product: p }: { product: ProductDetail }) {
  const id = useId();
  const [scope, setScope] = useState('');
  const [input, setInput] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [add, { isLoading }] = useAddLinkMutation();
  const [remove, { isLoading: removing }] = useRemoveLinkMutation();
  const own = p.config.links.filter((l) => l.variantId === scope);
  const fallback = scope !== '' && own.length === 0 ? linksFor(p.config.links, scope) : [];
  const typed = previewLink(input);

  const submit = async () => {
    setProblem(null);
    if (!input.trim()) return setProblem('Paste a link to your product in a store.');
    const res = await add({ productId: p.id, url: typed.url, ...(scope ? { variantId: scope } : {}) });
    if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The link could not be added.'));
    setInput('');
  };

  const dropAll = async () => {
    for (const l of own) {
      const res = await remove({ productId: p.id, linkId: l.id });
      if ('error' in res && res.error) return setProblem(errorMessage(res.error, 'The link could not be deleted.'));
    }
  };

  return (
    <div className="stack">
      <div className="field">
        <label htmlFor={`${id}-scope`}>Links for</label>
        <select id={`${id}-scope`} value={scope} onChange={(e) => setScope(e.target.value)}>
          <option value="">All variants (product)</option>
          {p.config.variants.map((v) => (
            <option key={v.id} value={v.id}>
              {v.name} only
            </option>
          ))}
        </select>
      </div>
      {own.length === 0 ? (
        <p className="muted" data-testid="no-links">
          {NO_LINKS_TEXT}
        </p>
      ) : (
        <ul className="config-list" aria-label="Purchase links">
          {own.map((l) => (
            <li key={l.id} className="config-item config-item--link" data-link-id={l.id}>
              <LinkChip link={l} />
              <span className="link-short" title={l.url}>
                {l.platform?.shortUrl || l.url}
              </span>
              <button type="button" className="btn btn--ghost btn--sm" disabled={removing} onClick={() => void remove({ productId: p.id, linkId: l.id })} aria-label={`Delete ${l.url}`}>
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {scope !== '' && own.length > 0 && (
        <button type="button" className="btn btn--ghost btn--sm" onClick={dropAll} disabled={removing}>
          Delete this variant's list (use the product links)
        </button>
      )}
      {fallback.length > 0 && <p className="muted">Shoppers of this variant see the product links ({fallback.length}).</p>}
      <div className="field">
        <label htmlFor={`${id}-url`}>Purchase link</label>
        <div className="link-input">
          <input
            id={`${id}-url`}
            value={input}
            maxLength={2048}
            placeholder="amazon.com/dp/…"
            onChange={(e) => setInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                void submit();
              }
            }}
          />
          {input.trim() && <LinkChip link={typed} />}
          <button type="button" className="btn btn--secondary btn--sm" onClick={submit} disabled={isLoading}>
            Add link
          </button>
        </div>
        {input.trim() && !typed.platform && <p className="muted">This is not a web address a shopper can open.</p>}
      </div>
      {problem && <Alert tone="error">{problem}</Alert>}
    </div>
  );
}
