import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { ActivityPanel } from './product-activity';

afterEach(() => vi.unstubAllGlobals());

describe('ActivityPanel (issue 51)', () => {
  it('reads "name action" newest first, with the reviewer comment under its line', async () => {
    const now = Date.now();
    stubFetch({
      'GET /api/products/p1/activity': () => ({
        items: [
          { at: new Date(now - 60_000).toISOString(), actor: { id: 'user-u3', kind: 'user', name: 'Ravi Reviewer' }, action: 'approved v1', kind: 'ApprovalApproved', detail: 'Prices checked.' },
          { at: new Date(now - 600_000).toISOString(), actor: { id: 'user-u2', kind: 'user', name: 'Ada Editor' }, action: 'requested approval for v1', kind: 'ApprovalRequested' },
          { at: new Date(now - 900_000).toISOString(), actor: { id: 'apikey-k1', kind: 'key', name: '' }, action: 'created the product', kind: 'ProductCreated' },
        ],
      }),
    });
    signIn();
    renderRoutes([{ path: '/', element: <ActivityPanel productId="p1" /> }]);
    const list = await screen.findByRole('list', { name: 'Activity' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((li) => li.querySelector('.activity__line')?.textContent)).toEqual([
      'Ravi Reviewer approved v1',
      'Ada Editor requested approval for v1',
      'An API key created the product',
    ]);
    expect(items[0]).toHaveTextContent('Prices checked.');
    expect(items[0]).toHaveTextContent('1 min ago');
  });

  it('says when nothing happened yet, and shows the server message on a refusal', async () => {
    stubFetch({ 'GET /api/products/p1/activity': () => ({ items: [] }) });
    signIn();
    renderRoutes([{ path: '/', element: <ActivityPanel productId="p1" /> }]);
    expect(await screen.findByText('Nothing has happened to this product yet.')).toBeInTheDocument();
  });
});
