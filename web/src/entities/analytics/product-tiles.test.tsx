import { render, screen } from '@testing-library/react';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { signIn, stubFetch } from '../../test/render';
import { ProductTiles } from './product-tiles';

afterEach(() => vi.unstubAllGlobals());

describe('ProductTiles', () => {
  it('shows Engagement, Hotspot CTR and Views from the server', async () => {
    const { calls } = stubFetch({
      'GET /api/products/p1/analytics': () => ({ shoppers: 40, views: 52, engagement: 37.5, hotspotCtr: 12.5, clicks: 3 }),
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
  });
});
