import { useCallback, useEffect, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { clearFilters, pageCount, parseListQuery, toSearchParams, updateQuery, type ListQuery, type Page } from './list-rules';

/** The list state lives in the URL query; changes replace the entry so Back leaves the list. */
export function useListQuery() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => parseListQuery(params), [params]);
  const change = useCallback((c: Partial<ListQuery>) => setParams(toSearchParams(updateQuery(query, c)), { replace: true }), [query, setParams]);
  const clear = useCallback(() => setParams(toSearchParams(clearFilters(query)), { replace: true }), [query, setParams]);
  return { query, change, clear };
}

/** A page past the end (items deleted, an old shared link) moves to the last page once the server has answered. */
export function useClampPage(data: Page<unknown> | undefined, query: ListQuery, change: (c: Partial<ListQuery>) => void) {
  const last = data ? pageCount(data.total, query.pageSize) : 1;
  useEffect(() => {
    if (data && query.page > last) change({ page: last });
  }, [data, query.page, last, change]);
}
