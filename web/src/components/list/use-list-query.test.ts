import { describe, expect, it } from 'vitest';
import { parseListQuery } from './list-rules';
import { keepOthers } from './use-list-query';

describe('list query in the URL (issue 29 item 13)', () => {
  it('paging keeps the page’s own parameters such as the list view', () => {
    const next = keepOthers(new URLSearchParams('view=list&page=1&q=oak'), new URLSearchParams('page=2&q=oak'));
    expect(next.get('view')).toBe('list');
    expect(next.get('page')).toBe('2');
    expect(next.getAll('q')).toEqual(['oak']);
  });
  it('reads the Draft and Live filters', () => {
    expect(parseListQuery(new URLSearchParams('status=live,draft,bogus')).status).toEqual(['draft', 'live']);
  });
});
