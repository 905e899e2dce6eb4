import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { IconAlert, IconCheck, IconClock } from '../icons';
import { useDismiss } from '../use-dismiss';
import { cleanSearch, hasFilters, MAX_SEARCH_LENGTH, PAGE_SIZES, pageCount, rangeText, SORTS, STATUS_FILTERS, type ItemStatus, type StatusFilter, type ListQuery, type SortKey } from './list-rules';
import './list.css';

const statusIcons = { ready: IconCheck, processing: IconClock, error: IconAlert } as const;
const statusTone = { ready: 'status--ready', processing: 'status--processing', error: 'status--error' } as const;

/** A card's status icon; the label is read out and shown on hover. */
export function StatusIcon({ status, label }: { status: ItemStatus | 'draft'; label: string }) {
  // A draft product (no build yet) shows the clock without a status colour.
  const Icon = status === 'draft' ? IconClock : (statusIcons[status] ?? IconClock);
  return (
    <span className={`status list-status ${status === 'draft' ? '' : (statusTone[status] ?? '')}`} title={label} data-status={status}>
      <Icon size={16} />
      <span className="visually-hidden">{label}</span>
    </span>
  );
}

/** Sort menu: Newest (default) or Name. */
export function SortSelect({ value, onChange }: { value: SortKey; onChange: (v: SortKey) => void }) {
  const id = useId();
  return (
    <div className="list-control">
      <label htmlFor={id}>Sort</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as SortKey)}>
        {SORTS.map((s) => (
          <option key={s.value} value={s.value}>
            {s.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The advanced filter popover: status checkboxes, created from/to, Clear all filters. */
export function FilterPopover({
  query,
  onChange,
  onClear,
  statuses = STATUS_FILTERS,
}: {
  query: ListQuery;
  onChange: (change: Partial<ListQuery>) => void;
  onClear: () => void;
  /** The status checkboxes this list offers (products add Draft and Live). */
  statuses?: { value: StatusFilter; label: string }[];
}) {
  const [open, setOpen] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);
  const close = useCallback(() => setOpen(false), []);
  useDismiss(open, box, trigger, close);
  const id = useId();
  const active = query.status.length + (query.from ? 1 : 0) + (query.to ? 1 : 0);
  const toggle = (s: StatusFilter, on: boolean) => {
    const set = new Set(query.status);
    if (on) set.add(s);
    else set.delete(s);
    onChange({ status: statuses.map((f) => f.value).filter((v) => set.has(v)) });
  };
  return (
    <div className="menu list-filter" ref={box}>
      <button
        ref={trigger}
        type="button"
        className="btn btn--secondary btn--sm"
        aria-expanded={open}
        aria-controls={`${id}-panel`}
        onClick={() => setOpen((o) => !o)}
      >
        Filters{active > 0 ? ` (${active})` : ''}
      </button>
      {open && (
        <div id={`${id}-panel`} className="menu__panel list-filter__panel" role="dialog" aria-label="Filters">
          <fieldset className="list-filter__group">
            <legend>Status</legend>
            {statuses.map((f) => (
              <label key={f.value} className="checkbox">
                <input type="checkbox" checked={query.status.includes(f.value)} onChange={(e) => toggle(f.value, e.target.checked)} />
                {f.label}
              </label>
            ))}
          </fieldset>
          <div className="list-filter__dates">
            <div className="field">
              <label htmlFor={`${id}-from`}>Created from</label>
              <input id={`${id}-from`} type="date" value={query.from} max={query.to || undefined} onChange={(e) => onChange({ from: e.target.value })} />
            </div>
            <div className="field">
              <label htmlFor={`${id}-to`}>Created to</label>
              <input id={`${id}-to`} type="date" value={query.to} min={query.from || undefined} onChange={(e) => onChange({ to: e.target.value })} />
            </div>
          </div>
          <button type="button" className="btn btn--ghost btn--sm" onClick={onClear} disabled={!hasFilters(query)}>
            Clear all filters
          </button>
        </div>
      )}
    </div>
  );
}

/**
 * Search box: the terms go to the server (q) on Enter or Search, so typing
 * does not send a request per key; an emptied box shows everything again.
 * Reset filters elsewhere empties it too.
 */
export function SearchBox({ value, label, onSearch }: { value: string; label: string; onSearch: (q: string) => void }) {
  const id = useId();
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const q = cleanSearch(text);
    setText(q);
    if (q !== value) onSearch(q);
  };
  return (
    <form className="list-search" role="search" onSubmit={submit}>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        type="search"
        value={text}
        maxLength={MAX_SEARCH_LENGTH}
        placeholder={label}
        onChange={(e) => {
          setText(e.target.value);
          if (e.target.value === '' && value !== '') onSearch('');
        }}
      />
      <button type="submit" className="btn btn--secondary btn--sm">
        Search
      </button>
    </form>
  );
}

/** The toolbar My Products and My Gallery share: filter popover, search box, sort menu. */
export function ListToolbar({
  query,
  onChange,
  onClear,
  searchLabel,
  statuses,
}: {
  query: ListQuery;
  onChange: (change: Partial<ListQuery>) => void;
  onClear: () => void;
  searchLabel: string;
  statuses?: { value: StatusFilter; label: string }[];
}) {
  return (
    <div className="list-toolbar">
      <FilterPopover query={query} onChange={onChange} onClear={onClear} statuses={statuses} />
      <SearchBox value={query.q} label={searchLabel} onSearch={(q) => onChange({ q })} />
      <span className="list-toolbar__spacer" />
      <SortSelect value={query.sort} onChange={(sort) => onChange({ sort })} />
    </div>
  );
}

/** Footer: range text, Rows per page, Prev/Next (disabled at the ends) and Page X of Y. */
export function Pagination({
  query,
  total,
  onChange,
}: {
  query: ListQuery;
  total: number;
  onChange: (change: Partial<ListQuery>) => void;
}) {
  const id = useId();
  const pages = pageCount(total, query.pageSize);
  const page = Math.min(query.page, pages);
  return (
    <footer className="list-footer" aria-label="Pagination">
      <span className="list-footer__range" data-testid="range-text">
        {rangeText(page, query.pageSize, total)}
      </span>
      <div className="list-control">
        <label htmlFor={id}>Rows per page</label>
        <select id={id} value={query.pageSize} onChange={(e) => onChange({ pageSize: Number(e.target.value) })}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </div>
      <div className="list-footer__pager">
        <button type="button" className="btn btn--secondary btn--sm" disabled={page <= 1} onClick={() => onChange({ page: page - 1 })}>
          Prev
        </button>
        <span data-testid="page-text">
          Page {page} of {pages}
        </span>
        <button type="button" className="btn btn--secondary btn--sm" disabled={page >= pages} onClick={() => onChange({ page: page + 1 })}>
          Next
        </button>
      </div>
    </footer>
  );
}

/**
 * A card of a product or gallery list: status icon, real image (or an icon),
 * name, first tag or a dash, and Manage. The whole card opens `to`.
 */
export function ItemCard({
  to,
  name,
  imageURL,
  fallback,
  tag,
  status,
  statusLabel,
  upper = false,
  testId,
  live = false,
  badge,
  meta,
}: {
  to: string;
  name: string;
  imageURL: string | null;
  fallback: ReactNode;
  tag: string;
  status: ItemStatus | 'draft';
  statusLabel: string;
  upper?: boolean;
  testId: string;
  /** Its public page is published: a Live badge on the card. */
  live?: boolean;
  /** A badge of the caller's instead of the Live badge (a product says when its page is offline). */
  badge?: ReactNode;
  /** Words beside the status icon (a product's status word and price). */
  meta?: ReactNode;
}) {
  const navigate = useNavigate();
  return (
    <article className="card item-card" data-testid={testId} data-status={status} onClick={() => navigate(to)}>
      <div className="item-card__thumb">
        {imageURL ? <img src={imageURL} alt="" loading="lazy" /> : fallback}
        {badge ?? (live && <span className="badge badge--live item-card__live">Live</span>)}
      </div>
      <p className={upper ? 'item-card__name item-card__name--upper' : 'item-card__name'}>{name}</p>
      <p className="item-card__tag">{tag}</p>
      <div className="item-card__foot">
        <StatusIcon status={status} label={statusLabel} />
        {meta}
        <button
          type="button"
          className="btn btn--secondary btn--sm"
          aria-label={`Manage ${name}`}
          onClick={(e) => {
            e.stopPropagation();
            navigate(to);
          }}
        >
          Manage
        </button>
      </div>
    </article>
  );
}
