import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { EmptyState } from './empty-state';
import { IconBox } from './icons';

describe('EmptyState', () => {
  it('shows an inline SVG icon, the title, one line and the next action', () => {
    render(
      <EmptyState testId="e" icon={<IconBox />} title="No Products Yet" text="Add a product to start your catalogue.">
        <button type="button">Add product</button>
      </EmptyState>,
    );
    const box = screen.getByTestId('e');
    expect(box).toHaveClass('card', 'empty-state');
    const icon = box.querySelector('.empty-state__icon svg');
    expect(icon).not.toBeNull();
    expect(icon?.closest('[aria-hidden="true"]')).not.toBeNull(); // decoration, not read out
    expect(within(box).getByText('No Products Yet')).toHaveClass('empty-state__title');
    expect(within(box).getByText('Add a product to start your catalogue.')).toHaveClass('empty-state__text');
    expect(within(box).getByRole('button', { name: 'Add product' }).parentElement).toHaveClass('empty-state__actions');
  });

  it('inside a card or a menu it drops the card frame; without text or action nothing empty is drawn', () => {
    render(<EmptyState testId="m" variant="menu" icon={<IconBox />} title="No matches found" />);
    const box = screen.getByTestId('m');
    expect(box).not.toHaveClass('card');
    expect(box).toHaveClass('empty-state--inline', 'empty-state--menu');
    expect(box.querySelector('.empty-state__text')).toBeNull();
    expect(box.querySelector('.empty-state__actions')).toBeNull();
  });
});

// Every list screen uses the one component: no feature or entity draws its own
// "card empty-state" box or a bare "No … yet" paragraph any more.
describe('empty states are folded into the shared component', () => {
  const sources = import.meta.glob<string>(['../features/**/*.tsx', '../entities/**/*.tsx', '!../**/*.test.tsx'], { eager: true, query: '?raw', import: 'default' });
  // Not lists: the Pro upsell, a gallery that does not exist, a product's photo, preview or configurator while it has no model, the developer-only demo page.
  const allowed = ['galleries/pro-gate.tsx', 'galleries/gallery-detail-page.tsx', 'products/product-detail-page.tsx', 'demo/demo-page.tsx', 'creation/preview-page.tsx', 'product/configurator.tsx'];
  it('has no one-off empty-state markup', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(20);
    const offenders = Object.entries(sources)
      .filter(([path]) => !allowed.some((a) => path.endsWith(a)))
      .filter(([, src]) => /className="[^"]*\bempty-state\b|<p className="muted">No [^<]* yet\.?<\/p>|No data in this range yet\.<\/p>/.test(src))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});
