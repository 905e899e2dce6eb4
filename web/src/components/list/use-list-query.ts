import { useCallback, useMemo } from 'react';
import { useSearchParams } from 'react-router';
import { clearFilters, parseListQuery, toSearchParams, updateQuery, type ListQuery } from './list-rules';

/** The list state lives in the URL query; changes replace the entry so Back leaves the list. */
export function useListQuery() {
  const [params, setParams] = useSearchParams();
  const query = useMemo(() => parseListQuery(params), [params]);
  const change = useCallback((c: Partial<ListQuery>) => setParams(toSearchParams(updateQuery(query, c)), { replace: true }), [query, setParams]);
  const clear = useCallback(() => setParams(toSearchParams(clearFilters(query)), { replace: true }), [query, setParams]);
  return { query, change, clear };
}
