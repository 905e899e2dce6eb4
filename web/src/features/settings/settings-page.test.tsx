import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

describe('SettingsPage', () => {
  it('saves branding, shows server validation messages and resets to the saved values', async () => {
    let branding = { brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null as string | null };
    const { calls } = stubFetch({
      'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/branding': () => branding,
      'PUT /api/branding': ({ body }) => {
        const b = body as typeof branding;
        if (!/^#[0-9A-Fa-f]{6}$/.test(b.brandColor))
          return jsonResponse({ success: false, error: { code: 'validation', message: 'Brand colour must be a hex colour like #2E5BBA' } }, 422);
        branding = { ...branding, ...b };
        return branding;
      },
      'POST /api/branding/logo': () => {
        branding = { ...branding, logoUrl: '/blobs/logo.png' };
        return branding;
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const name = await screen.findByLabelText('Brand name');
    await waitFor(() => expect(name).toHaveValue('Asha Home'));
    expect(screen.getByLabelText('Brand colour')).toHaveValue('#2E5BBA');
    expect(screen.getByText(/512 × 512 recommended\. Used on share pages, embeds and billing documents\./)).toBeInTheDocument();
    const user = userEvent.setup();

    await user.clear(screen.getByLabelText('Brand colour'));
    await user.type(screen.getByLabelText('Brand colour'), 'blue');
    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Brand colour must be a hex colour like #2E5BBA');

    await user.click(screen.getByRole('button', { name: 'Reset changes' }));
    expect(screen.getByLabelText('Brand colour')).toHaveValue('#2E5BBA');

    await user.clear(name);
    await user.type(name, 'Rao Furniture');
    await user.clear(screen.getByLabelText('Brand colour'));
    await user.type(screen.getByLabelText('Brand colour'), '#112233');
    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    expect(await screen.findByText('Branding saved')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({ brandName: 'Rao Furniture', brandColor: '#112233' });

    const file = new File([new Uint8Array([137, 80, 78, 71])], 'logo.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Logo file'), { target: { files: [file] } });
    expect(await screen.findByRole('img', { name: 'Current brand logo' })).toHaveAttribute('src', '/blobs/logo.png');
    const upload = calls.find((c) => c.url === '/api/branding/logo');
    expect(upload?.body).toBeInstanceOf(FormData);
    expect((upload?.body as FormData).get('file')).toBeInstanceOf(File);
  });
});
