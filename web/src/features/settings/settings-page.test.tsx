import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());
beforeEach(() => {
  // jsdom has no object URLs; the chosen logo's preview uses one.
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:logo-preview') });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});

describe('SettingsPage', () => {
  it('saves branding, shows server validation messages and resets to the defaults', async () => {
    let branding = { brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null as string | null };
    const { calls } = stubFetch({
      'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/webhooks': () => ({ items: [], eventTypes: [] }),
      'GET /api/channels/google-feed': () => ({ url: 'https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml' }),
      'GET /api/branding': () => branding,
      'GET /api/settings/store': () => ({ defaultCurrency: 'INR' }),
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
    expect(name).toHaveAccessibleDescription('Shown to shoppers on your share pages and embeds. Until you name your brand, they show Photo3D.');
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
    expect(name).toHaveValue('Your Brand');

    await user.clear(name);
    await user.type(name, 'Rao Furniture');
    await user.clear(screen.getByLabelText('Brand colour'));
    await user.type(screen.getByLabelText('Brand colour'), '#112233');
    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    expect(await screen.findByText('Branding saved')).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({ brandName: 'Rao Furniture', brandColor: '#112233' });

    // Issue 29 item 5: choosing a logo keeps unsaved edits; the logo is stored with them on Save.
    await user.clear(name);
    await user.type(name, 'Rao Living');
    const file = new File([new Uint8Array([137, 80, 78, 71])], 'logo.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Logo file'), { target: { files: [file] } });
    expect(await screen.findByRole('img', { name: 'Current brand logo' })).toHaveAttribute('src', 'blob:logo-preview');
    expect(screen.getByText('The new logo is stored when you save.')).toBeInTheDocument();
    expect(calls.some((c) => c.url === '/api/branding/logo')).toBe(false);
    expect(name).toHaveValue('Rao Living');
    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    await waitFor(() => expect(calls.filter((c) => c.method === 'PUT').at(-1)?.body).toEqual({ brandName: 'Rao Living', brandColor: '#112233' }));
    const upload = calls.find((c) => c.url === '/api/branding/logo');
    expect(upload?.body).toBeInstanceOf(FormData);
    expect((upload?.body as FormData).get('file')).toBeInstanceOf(File);
    expect(await screen.findByRole('img', { name: 'Current brand logo' })).toHaveAttribute('src', '/blobs/logo.png');
    expect(name).toHaveValue('Rao Living');
  });

  // Spec §2: "Brand name input (default a placeholder brand), brand colour text input with
  // swatch (default #2E5BBA), logo upload ... 'Reset changes' restores defaults."
  it('"Reset changes" restores the default name and colour, keeps the stored logo, and nothing is stored until Save', async () => {
    let branding = { brandName: 'Rao Furniture', brandColor: '#112233', logoUrl: '/media/logos/u1/logo.png' as string | null };
    const { calls } = stubFetch({
      'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/webhooks': () => ({ items: [], eventTypes: [] }),
      'GET /api/channels/google-feed': () => ({ url: 'https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml' }),
      'GET /api/branding': () => branding,
      'GET /api/settings/store': () => ({ defaultCurrency: 'INR' }),
      'PUT /api/branding': ({ body }) => {
        branding = { ...branding, ...(body as typeof branding) };
        return branding;
      },
      'DELETE /api/branding/logo': () => {
        branding = { ...branding, logoUrl: null };
        return branding;
      },
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const name = await screen.findByLabelText('Brand name');
    await waitFor(() => expect(name).toHaveValue('Rao Furniture'));
    expect(screen.getByRole('img', { name: 'Current brand logo' })).toBeInTheDocument();
    const user = userEvent.setup();

    await user.click(screen.getByRole('button', { name: 'Reset changes' }));
    expect(name).toHaveValue('Your Brand');
    expect(screen.getByLabelText('Brand colour')).toHaveValue('#2E5BBA');
    // Reset drops pending logo changes; it never deletes the stored logo (issue 29 item 5).
    expect(screen.getByRole('img', { name: 'Current brand logo' })).toHaveAttribute('src', '/media/logos/u1/logo.png');
    expect(screen.getByRole('button', { name: 'Reset changes' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Remove logo' }));
    expect(screen.getByText('No logo')).toBeInTheDocument();
    expect(screen.getByText('The current logo is removed when you save.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Reset changes' }));
    expect(screen.getByRole('img', { name: 'Current brand logo' })).toBeInTheDocument();
    // Saving is explicit: resetting sent nothing.
    expect(calls.filter((c) => c.method !== 'GET')).toEqual([]);

    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    expect(await screen.findByText('Branding saved')).toBeInTheDocument();
    expect(calls.find((c) => c.method === 'PUT')?.body).toEqual({ brandName: 'Your Brand', brandColor: '#2E5BBA' });
    expect(calls.some((c) => c.method === 'DELETE')).toBe(false);
    expect(branding).toEqual({ brandName: 'Your Brand', brandColor: '#2E5BBA', logoUrl: '/media/logos/u1/logo.png' });

    // Remove logo + Save deletes it.
    await user.click(screen.getByRole('button', { name: 'Remove logo' }));
    await user.click(screen.getByRole('button', { name: 'Save branding' }));
    await waitFor(() => expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/branding/logo')).toBe(true));
    expect(await screen.findByText('No logo')).toBeInTheDocument();
  });

  // Issue 19 item 2: the help text states the server's 2 MB limit and a larger logo gets that
  // message before anything is uploaded (spec §2: "logo upload accepting PNG, SVG or JPEG").
  it('states the 2 MB logo limit and refuses a larger logo before uploading it', async () => {
    const { calls } = stubFetch({
      'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
      'GET /api/subscription': () => freeSubscription(),
      'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
      'GET /api/webhooks': () => ({ items: [], eventTypes: [] }),
      'GET /api/channels/google-feed': () => ({ url: 'https://p3d.example/feeds/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/google.xml' }),
      'GET /api/branding': () => ({ brandName: 'Your Brand', brandColor: '#2E5BBA', logoUrl: null }),
      'GET /api/settings/store': () => ({ defaultCurrency: 'INR' }),
    });
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    expect(await screen.findByText(/^PNG, SVG or JPEG, up to 2 MB; 512 × 512 recommended\./)).toBeInTheDocument();
    const big = new File([new Uint8Array(2 * 1024 * 1024 + 1)], 'huge.png', { type: 'image/png' });
    fireEvent.change(screen.getByLabelText('Logo file'), { target: { files: [big] } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Logos must be 2 MB or smaller.');
    expect(calls.some((c) => c.url === '/api/branding/logo')).toBe(false);
  });
});
