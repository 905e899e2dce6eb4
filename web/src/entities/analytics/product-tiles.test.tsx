import { fireEvent, render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { signIn, stubFetch } from '../../test/render';
import { ProductTiles } from './product-tiles';

afterEach(() => vi.unstubAllGlobals());

describe('ProductTiles', () => {
  it('shows Engagement, Hotspot CTR and Views from the server', async () => {
    const { calls } = stubFetch({
      'GET /api/products/p1/analytics': () => ({
        shoppers: 40,
        views: 52,
        engagement: 37.5,
        hotspotCtr: 12.5,
        clicks: 3,
        definitions: {
          engagement: { label: 'Engagement', definition: 'Engaged shoppers as a share of this product’s shoppers.', unit: '%' },
          hotspotCtr: { label: 'Hotspot CTR', definition: 'Shoppers who opened a hotspot, as a share.', unit: '%' },
          views: { label: 'Views', definition: 'Counted views: one per shopper per day.', unit: 'views' },
        },
      }),
    });
    signIn();
    render(
      <Provider store={makeStore()}>
        <ProductTiles productId="p1" />
      </Provider>,
    );
    expect(await screen.findByText('37.5%')).toBeInTheDocument();
    expect(screen.getByText('12.5%')).toBeInTheDocument();
    expect(screen.getByText('52')).toBeInTheDocument();
    expect(calls[0].url).toBe('/api/products/p1/analytics?range=30d');
    // Each tile's definition (the server's) on hover and focus.
    expect(screen.getByRole('button', { name: 'What Views means' })).toHaveAccessibleDescription('Counted views: one per shopper per day. Unit: views.');
    fireEvent.focus(screen.getByRole('button', { name: 'What Engagement means' }));
    expect(screen.getByRole('tooltip')).toHaveTextContent('Engaged shoppers as a share of this product’s shoppers. Unit: %.');
  });
});
