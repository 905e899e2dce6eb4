import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useNavigate } from 'react-router';
import { EmptyState } from '../../components/empty-state';
import { IconSearch } from '../../components/icons';
import { useDismiss } from '../../components/use-dismiss';
import { useMenu } from '../../lib/ui-slice';
import { useLazySearchQuery, useSearchQuery } from './search-api';
import { matchNote, matchSearchItems, normalizeQuery } from './search-rules';
import { useWorkspaceRole } from '../../entities/team/use-workspace';

function useDebounced<T>(value: T, ms: number): T {
  const [v, setV] = useState(value);
  useEffect(() => {
    const t = window.setTimeout(() => setV(value), ms);
    return () => window.clearTimeout(t);
  }, [value, ms]);
  return v;
}

/**
 * Top-bar search: live suggestions; Enter opens the first match and clears. It searches the
 * catalogue (GET /api/search), which an analyst does not see (issue 51): no box for them.
 */
export function SearchBox() {
  const { canSee } = useWorkspaceRole();
  return canSee ? <Search /> : null;
}

function Search() {
  const [text, setText] = useState('');
  const [active, setActive] = useState(-1);
  const [noMatch, setNoMatch] = useState(false);
  const { open, setOpen, close } = useMenu('search');
  const box = useRef<HTMLFormElement>(null);
  const input = useRef<HTMLInputElement>(null);
  const navigate = useNavigate();
  const listId = useId();
  const debounced = normalizeQuery(useDebounced(text, 200));
  const { data, isFetching } = useSearchQuery(debounced ?? '', { skip: !debounced });
  const [runSearch] = useLazySearchQuery();
  useDismiss(open, box, input, close);

  const results = debounced ? matchSearchItems(data ?? [], debounced) : [];

  function go(path: string) {
    setText('');
    setActive(-1);
    setNoMatch(false);
    close();
    navigate(path);
  }

  async function onSubmit(e: FormEvent) {
    e.preventDefault();
    const q = normalizeQuery(text);
    if (!q) return;
    if (active >= 0 && results[active]) return go(results[active].path);
    try {
      const items = matchSearchItems(await runSearch(q, true).unwrap(), q);
      if (items[0]) return go(items[0].path);
    } catch {
      /* fall through to the no-match message */
    }
    setNoMatch(true);
    setOpen(true);
  }

  function onKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (!results.length) return;
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (i + 1) % results.length);
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i <= 0 ? results.length - 1 : i - 1));
    }
  }

  const showPanel = open && (debounced !== null || noMatch);
  return (
    <form ref={box} className="search" role="search" onSubmit={onSubmit}>
      <label htmlFor={`${listId}-input`} className="visually-hidden">Search products, galleries and blueprints</label>
      <IconSearch size={18} className="search__icon" />
      <input
        ref={input}
        id={`${listId}-input`}
        className="search__input"
        type="search"
        placeholder="Search products, galleries…"
        autoComplete="off"
        role="combobox"
        aria-expanded={showPanel}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={active >= 0 ? `${listId}-opt-${active}` : undefined}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setActive(-1);
          setNoMatch(false);
          setOpen(Boolean(e.target.value.trim()));
        }}
        onFocus={() => text.trim() && setOpen(true)}
        onKeyDown={onKeyDown}
      />
      {showPanel && (
        <div className="menu__panel search__panel">
          {results.length > 0 ? (
            <ul id={listId} role="listbox" aria-label="Search results" className="search__list">
              {results.map((r, i) => (
                <li
                  key={`${r.type}-${r.id}`}
                  id={`${listId}-opt-${i}`}
                  role="option"
                  aria-selected={i === active}
                  className={i === active ? 'search__option search__option--active' : 'search__option'}
                  onMouseDown={(e) => e.preventDefault()}
                  onClick={() => go(r.path)}
                >
                  <span className="search__label">
                    {r.label}
                    {matchNote(r) && <span className="search__why">{matchNote(r)}</span>}
                  </span>
                  <span className="badge">{r.type}</span>
                </li>
              ))}
            </ul>
          ) : (
            <div id={listId} className="search__empty" role="status">
              {isFetching && !noMatch ? (
                'Searching…'
              ) : (
                <EmptyState variant="menu" icon={<IconSearch />} title="No matches found" text="Try another word: product names, tags, descriptions, catalogs and galleries are searched.">
                  <a
                    href="/workspace/products"
                    className="btn btn--secondary btn--sm"
                    onMouseDown={(e) => e.preventDefault()}
                    onClick={(e) => (e.preventDefault(), go('/workspace/products'))}
                  >
                    Browse all products
                  </a>
                </EmptyState>
              )}
            </div>
          )}
        </div>
      )}
    </form>
  );
}
