import { useId, useMemo, useState, type FormEvent } from 'react';
import { Alert } from '../../components/alert';
import { EmptyState } from '../../components/empty-state';
import { IconBox } from '../../components/icons';
import { Link } from 'react-router';
import { DEFAULT_QUERY } from '../../components/list/list-rules';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { addTag, type Product } from '../../entities/product/product-rules';
import { useListProductsQuery } from '../../entities/product/products-api';
import { DEFAULT_TILE_COLOR, effectiveCover, MAX_GALLERY_DESCRIPTION, MAX_GALLERY_NAME, MAX_GALLERY_PRODUCTS, move, NOT_SHOWN_HELP, NOT_SHOWN_LABEL, validateGalleryName } from './gallery-rules';

export interface GalleryDraft {
  name: string;
  description: string;
  productIds: string[];
  coverProductId: string | null;
  /** The gallery's own tags (spec §3), not its products'. */
  tags: string[];
  /** The tile colour; null keeps the server's default. */
  thumbnailColor: string | null;
}

/**
 * The form create and detail share: name, description, which products (in
 * order, Up/Down to reorder) and which one is the cover.
 */
export function GalleryEditor({
  initial,
  known = [],
  submitLabel,
  busy,
  onSubmit,
}: {
  initial: GalleryDraft;
  /** Products the server already returned with the gallery (shown even before the full list loads). */
  known?: Product[];
  submitLabel: string;
  busy: boolean;
  onSubmit: (d: GalleryDraft) => Promise<unknown>;
}) {
  const id = useId();
  const [name, setName] = useState(initial.name);
  const [description, setDescription] = useState(initial.description);
  const [productIds, setProductIds] = useState(initial.productIds);
  const [cover, setCover] = useState(initial.coverProductId);
  const [tags, setTags] = useState(initial.tags);
  const [tagInput, setTagInput] = useState('');
  const [color, setColor] = useState(initial.thumbnailColor);
  const [problem, setProblem] = useState<string | null>(null);
  // Pro allows 50 products, so one page of 50 holds them all.
  const { data, isLoading, error } = useListProductsQuery({ ...DEFAULT_QUERY, sort: 'name', pageSize: MAX_GALLERY_PRODUCTS });
  const byId = useMemo(() => {
    const m = new Map<string, Product>();
    for (const p of known) m.set(p.id, p);
    for (const p of data?.items ?? []) m.set(p.id, p);
    return m;
  }, [known, data]);
  const chosenCover = effectiveCover(productIds, cover);

  const toggle = (pid: string, on: boolean) => setProductIds((ids) => (on ? (ids.includes(pid) ? ids : [...ids, pid]) : ids.filter((x) => x !== pid)));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setProblem(null);
    const bad = validateGalleryName(name);
    if (bad) return setProblem(bad);
    try {
      await onSubmit({ name: name.trim(), description: description.trim(), productIds, coverProductId: chosenCover, tags, thumbnailColor: color });
    } catch (err) {
      setProblem(errorMessage(err, 'The gallery could not be saved.'));
    }
  };

  const coverProduct = chosenCover ? byId.get(chosenCover) : undefined;
  const addTypedTag = () => {
    if (!tagInput.trim()) return;
    const r = addTag(tags, tagInput);
    if ('error' in r) return setProblem(r.error.replace('A product', 'A gallery'));
    setProblem(null);
    setTags(r.tags);
    setTagInput('');
  };
  return (
    <form className="form gallery-editor" onSubmit={submit}>
      <div className="field">
        <label htmlFor={`${id}-name`}>Gallery name</label>
        <input id={`${id}-name`} value={name} maxLength={MAX_GALLERY_NAME} onChange={(e) => setName(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-desc`}>Description</label>
        <textarea id={`${id}-desc`} value={description} maxLength={MAX_GALLERY_DESCRIPTION} rows={3} onChange={(e) => setDescription(e.target.value)} />
      </div>
      <div className="field">
        <label htmlFor={`${id}-tag`}>Tags</label>
        {tags.length > 0 && (
          <ul className="gallery-tags" aria-label="Gallery tags">
            {tags.map((t) => (
              <li key={t} className="badge">
                {t}
                <button type="button" className="gallery-tags__remove" aria-label={`Remove tag ${t}`} onClick={() => setTags(tags.filter((x) => x !== t))}>
                  ×
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="gallery-tags__add">
          <input
            id={`${id}-tag`}
            value={tagInput}
            placeholder="e.g. Summer"
            onChange={(e) => setTagInput(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ',') {
                e.preventDefault();
                addTypedTag();
              }
            }}
          />
          <button type="button" className="btn btn--secondary btn--sm" onClick={addTypedTag}>
            + Add Tag
          </button>
        </div>
      </div>
      <div className="field gallery-color">
        <label htmlFor={`${id}-color`}>Tile colour</label>
        <input id={`${id}-color`} type="color" value={(color ?? initial.thumbnailColor ?? DEFAULT_TILE_COLOR).toLowerCase()} onChange={(e) => setColor(e.target.value.toUpperCase())} />
        <span className="field__help">Shown behind the cover on your gallery cards.</span>
      </div>

      <fieldset className="field">
        <legend>Products</legend>
        {isLoading ? (
          <LoadingScreen />
        ) : error ? (
          <Alert tone="error">{errorMessage(error, 'Your products could not be loaded.')}</Alert>
        ) : (data?.items.length ?? 0) === 0 ? (
          <EmptyState variant="inline" icon={<IconBox />} title="You have no products yet" text="Add products first, then collect them here.">
            <Link to="/workspace/add-product" className="btn btn--secondary btn--sm">
              Add product
            </Link>
          </EmptyState>
        ) : (
          <>
            {data!.items.some((p) => !p.live) && <p className="field__help">{NOT_SHOWN_HELP}</p>}
            <ul className="gallery-pick" aria-label="Pick products">
              {data!.items.map((p) => {
                const on = productIds.includes(p.id);
                return (
                  <li key={p.id}>
                    <label className={on ? 'gallery-pick__item gallery-pick__item--on' : 'gallery-pick__item'}>
                      {p.thumbnailURL ? <img src={p.thumbnailURL} alt="" /> : <span className="gallery-pick__blank" />}
                      <span className="checkbox">
                        <input
                          type="checkbox"
                          checked={on}
                          onChange={(e) => toggle(p.id, e.target.checked)}
                          aria-label={p.name}
                          aria-describedby={p.live ? undefined : `${id}-state-${p.id}`}
                        />
                        {p.name}
                      </span>
                      {!p.live && (
                        <span className="badge badge--muted" id={`${id}-state-${p.id}`}>
                          {NOT_SHOWN_LABEL}
                        </span>
                      )}
                    </label>
                  </li>
                );
              })}
            </ul>
          </>
        )}
      </fieldset>

      {productIds.length > 0 && (
        <fieldset className="field">
          <legend>Order and cover</legend>
          <ol className="gallery-order" aria-label="Gallery order">
            {productIds.map((pid, i) => {
              const p = byId.get(pid);
              const label = p?.name ?? 'Product';
              return (
                <li key={pid} className="card" data-testid="gallery-order-item">
                  {p?.thumbnailURL ? <img src={p.thumbnailURL} alt="" /> : <span className="gallery-pick__blank" />}
                  <span className="gallery-order__name">
                    {label}
                    {p && !p.live && <span className="badge badge--muted gallery-order__state">{NOT_SHOWN_LABEL}</span>}
                  </span>
                  <label className="checkbox">
                    <input type="radio" name={`${id}-cover`} checked={chosenCover === pid} onChange={() => setCover(pid)} aria-label={`Use ${label} as cover`} />
                    Cover
                  </label>
                  <button type="button" className="btn btn--ghost btn--sm" disabled={i === 0} onClick={() => setProductIds(move(productIds, i, -1))} aria-label={`Move ${label} up`}>
                    Up
                  </button>
                  <button
                    type="button"
                    className="btn btn--ghost btn--sm"
                    disabled={i === productIds.length - 1}
                    onClick={() => setProductIds(move(productIds, i, 1))}
                    aria-label={`Move ${label} down`}
                  >
                    Down
                  </button>
                  <button type="button" className="btn btn--ghost btn--sm" onClick={() => toggle(pid, false)} aria-label={`Remove ${label}`}>
                    Remove
                  </button>
                </li>
              );
            })}
          </ol>
          {coverProduct?.thumbnailURL && (
            <div className="gallery-cover">
              <img src={coverProduct.thumbnailURL} alt={`Cover: ${coverProduct.name}`} />
            </div>
          )}
        </fieldset>
      )}

      {problem && <Alert tone="error">{problem}</Alert>}
      <div className="btn-row btn-row--end">
        <button type="submit" className="btn btn--primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
