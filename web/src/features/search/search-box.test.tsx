import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { SearchBox } from './search-box';

afterEach(() => vi.unstubAllGlobals());

// Issue 50 item 17: the hint promises tags, descriptions and catalogs; the server searches
// them, and a hit found that way stays in the list and says what matched.
describe('SearchBox', () => {
  it('shows hits found by tag or catalog with what matched, and Enter opens the first', async () => {
    const { calls } = stubFetch({
      'GET /api/search': ({ url }) =>
        url.searchParams.get('q') === 'kitchen'
          ? {
              items: [
                { id: 'p1', label: 'Red Mug', type: 'Product', path: '/workspace/product/p1', matchedOn: 'catalog “Kitchen Collection”' },
                { id: 'p2', label: 'Kitchen scale', type: 'Product', path: '/workspace/product/p2' },
              ],
            }
          : { items: [] },
    });
    signIn();
    const { router } = renderRoutes(
      [
        { path: '/', element: <SearchBox /> },
        { path: '/workspace/product/:id', element: <h1>Product</h1> },
      ],
      ['/'],
    );
    const user = userEvent.setup();
    await user.type(screen.getByRole('combobox'), 'kitchen');
    const list = await screen.findByRole('listbox', { name: 'Search results' });
    const options = within(list).getAllByRole('option');
    expect(options).toHaveLength(2);
    expect(options[0]).toHaveTextContent('Red Mug');
    expect(options[0]).toHaveTextContent('Matches its catalog “Kitchen Collection”');
    expect(options[1]).not.toHaveTextContent('Matches');
    expect(new URL(calls.at(-1)!.url, 'http://x').searchParams.get('q')).toBe('kitchen');
    await user.keyboard('{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace/product/p1'));
  });

  it('with no hit, the hint names what is searched', async () => {
    stubFetch({ 'GET /api/search': () => ({ items: [] }) });
    signIn();
    renderRoutes([{ path: '/', element: <SearchBox /> }], ['/']);
    await userEvent.setup().type(screen.getByRole('combobox'), 'zebra');
    expect(await screen.findByText('No matches found')).toBeInTheDocument();
    expect(screen.getByText('Try another word: product names, tags, descriptions, catalogs and galleries are searched.')).toBeInTheDocument();
  });
});
