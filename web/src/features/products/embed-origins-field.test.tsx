import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Provider } from 'react-redux';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeStore } from '../../app/store';
import { stubFetch } from '../../test/render';
import { EmbedOriginsField, parseOrigins } from './embed-origins-field';

afterEach(() => vi.unstubAllGlobals());

function renderField(origins: string[] = []) {
  return render(
    <Provider store={makeStore()}>
      <EmbedOriginsField publicationId="pub-1" origins={origins} />
    </Provider>,
  );
}

describe('EmbedOriginsField', () => {
  it('splits one site per line, commas or spaces', () => {
    expect(parseOrigins(' https://a.example.com\nhttps://b.example.com, http://localhost:3000  ')).toEqual([
      'https://a.example.com',
      'https://b.example.com',
      'http://localhost:3000',
    ]);
    expect(parseOrigins('  \n ')).toEqual([]);
  });

  it('saves the allowed sites with PUT and shows the current list', async () => {
    const { calls } = stubFetch({ 'PUT /api/publications/pub-1/embed-origins': ({ body }) => ({ id: 'pub-1', embedOrigins: (body as { origins: string[] }).origins }) });
    renderField(['https://old.example.com']);
    const box = screen.getByLabelText('Allowed sites');
    expect(box).toHaveValue('https://old.example.com');
    await userEvent.clear(box);
    await userEvent.type(box, 'https://shop.example.com{Enter}https://*.example.org');
    await userEvent.click(screen.getByRole('button', { name: 'Save allowed sites' }));
    expect(await screen.findByText('Allowed sites saved.')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ origins: ['https://shop.example.com', 'https://*.example.org'] });
  });

  it('shows why the server refused a site', async () => {
    stubFetch({
      'PUT /api/publications/pub-1/embed-origins': () =>
        new Response(JSON.stringify({ success: false, error: { code: 'invalid_embed_origin', message: '"https://a.com/x" is not a site origin.' } }), { status: 400 }),
    });
    renderField();
    await userEvent.type(screen.getByLabelText('Allowed sites'), 'https://a.com/x');
    await userEvent.click(screen.getByRole('button', { name: 'Save allowed sites' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('"https://a.com/x" is not a site origin.');
  });
});
