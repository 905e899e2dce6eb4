import { useCallback, useEffect, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { clearFilters, pageCount, parseListQuery, toSearchParams, updateQuery, type ListQuery, type Page } from './list-rules';

/** The list state lives in the URL query; changes replace the entry so Back leaves the list. */
export function useListQuery() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => parseListQuery(params), [params]);
  const change = useCallback((c: Partial<ListQuery>) => setParams(keepOthers(params, toSearchParams(updateQuery(query, c))), { replace: true }), [params, query, setParams]);
  const clear = useCallback(() => setParams(keepOthers(params, toSearchParams(clearFilters(query))), { replace: true }), [params, query, setParams]);
  return { query, change, clear };
}

/** A page past the end (items deleted, an old shared link) moves to the last page once the server has answered. */
export function useClampPage(data: Page<unknown> | undefined, query: ListQuery, change: (c: Partial<ListQuery>) => void) {
  const last = data ? pageCount(data.total, query.pageSize) : 1;
  useEffect(() => {
    if (data && query.page > last) change({ page: last });
  }, [data, query.page, last, change]);
}

/** The list's own keys; anything else in the URL (such as ?view=list) belongs to the page. */
const LIST_KEYS = new Set(['status', 'from', 'to', 'sort', 'page', 'pageSize', 'q']);

/** The new list query plus the page's other parameters, so paging keeps the list view (issue 29 item 13). */
export function keepOthers(current: URLSearchParams, list: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams(list);
  for (const [k, v] of current) if (!LIST_KEYS.has(k)) out.append(k, v);
  return out;
}
