import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { routes } from '../../app/routes';
import { freeSubscription } from '../../test/fixtures';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';

afterEach(() => vi.unstubAllGlobals());

type Hook = { id: string; url: string; events: string[]; createdAt: string };

function shell() {
  return {
    'GET /api/users/me': () => ({ id: 'u1', email: 'asha@example.com', firstName: 'Asha' }),
    'GET /api/subscription': () => freeSubscription(),
    'GET /api/notifications': () => ({ items: [], unreadCount: 0 }),
    'GET /api/branding': () => ({ brandName: 'Asha Home', brandColor: '#2E5BBA', logoUrl: null }),
  };
}

describe('WebhooksPanel', () => {
  it('adds an endpoint, shows its secret once, sends a test event and lists the delivery log', async () => {
    let hooks: Hook[] = [];
    const deliveries = [
      {
        id: 'd2', eventId: 'evt_test_1', eventType: 'webhook.test', state: 'pending', attempts: 1, lastStatus: 500,
        lastError: 'The endpoint answered 500.', firstAttemptAt: '2026-11-23T07:00:00Z', lastAttemptAt: '2026-11-23T07:00:00Z',
        nextRetryAt: '2026-11-23T07:00:30Z', finishedAt: null, createdAt: '2026-11-23T07:00:00Z',
      },
      {
        id: 'd1', eventId: 'evt_0123456789abcdef01234567', eventType: 'job.completed', state: 'delivered', attempts: 1, lastStatus: 204,
        lastError: '', firstAttemptAt: '2026-11-23T06:00:00Z', lastAttemptAt: '2026-11-23T06:00:00Z',
        nextRetryAt: null, finishedAt: '2026-11-23T06:00:00Z', createdAt: '2026-11-23T06:00:00Z',
      },
    ];
    const { calls } = stubFetch({
      ...shell(),
      'GET /api/webhooks': () => ({ items: hooks, eventTypes: [] }),
      'POST /api/webhooks': ({ body }) => {
        const b = body as { url: string; events: string[] };
        if (!b.url.startsWith('https://'))
          return jsonResponse({ success: false, error: { code: 'invalid_webhook_url', message: 'Enter the endpoint’s full https:// URL.' } }, 400);
        const h = { id: 'w1', url: b.url, events: b.events, createdAt: '2026-11-23T07:00:00Z' };
        hooks = [h];
        return jsonResponse({ success: true, data: { ...h, secret: 'whsec_shown_once_123' } }, 201);
      },
      'POST /api/webhooks/w1/test': () => jsonResponse({ success: true, data: deliveries[0] }, 202),
      'GET /api/webhooks/w1/deliveries': () => ({ items: deliveries }),
      'DELETE /api/webhooks/w1': () => {
        hooks = [];
        return { deleted: true };
      },
    });
    vi.stubGlobal('confirm', () => true);
    signIn();
    renderRoutes(routes, ['/workspace/settings']);
    const user = userEvent.setup();
    expect(await screen.findByText('No webhook endpoints yet.')).toBeInTheDocument();

    // The server's validation message is shown as is.
    await user.type(screen.getByLabelText('Endpoint URL'), 'http://shop.example/hook');
    await user.click(screen.getByRole('checkbox', { name: /A 3D model is ready/ }));
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(await screen.findByText('Enter the endpoint’s full https:// URL.')).toBeInTheDocument();

    await user.clear(screen.getByLabelText('Endpoint URL'));
    await user.type(screen.getByLabelText('Endpoint URL'), 'https://shop.example/hook');
    await user.click(screen.getByRole('checkbox', { name: /A shopper left an email/ }));
    await user.click(screen.getByRole('button', { name: 'Add endpoint' }));
    expect(await screen.findByTestId('webhook-secret')).toHaveTextContent('whsec_shown_once_123');
    expect(screen.getByText(/it will not be shown again/)).toBeInTheDocument();
    expect(calls.filter((c) => c.method === 'POST' && c.url === '/api/webhooks').at(-1)?.body).toEqual({
      url: 'https://shop.example/hook',
      events: ['job.completed', 'lead.captured'],
    });

    const item = await screen.findByRole('listitem', { name: 'Webhook https://shop.example/hook' });
    expect(within(item).getByText('lead.captured')).toBeInTheDocument();
    await user.click(within(item).getByRole('button', { name: 'Send test event' }));
    expect(await within(item).findByText('Test event queued')).toBeInTheDocument();
    expect(calls.some((c) => c.method === 'POST' && c.url === '/api/webhooks/w1/test')).toBe(true);

    const table = await within(item).findByRole('table', { name: 'Deliveries' });
    const rows = within(table).getAllByRole('row');
    expect(rows).toHaveLength(3);
    expect(rows[1]).toHaveTextContent('webhook.test');
    expect(rows[1]).toHaveTextContent('Retrying');
    expect(rows[1]).toHaveTextContent('500');
    expect(rows[1]).toHaveTextContent('The endpoint answered 500.');
    expect(rows[2]).toHaveTextContent('job.completed');
    expect(rows[2]).toHaveTextContent('Delivered');
    expect(rows[2]).toHaveTextContent('204');

    await user.click(within(item).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByRole('listitem', { name: 'Webhook https://shop.example/hook' })).not.toBeInTheDocument());
    expect(calls.some((c) => c.method === 'DELETE' && c.url === '/api/webhooks/w1')).toBe(true);
    // The secret is never fetched again: the list answer carries none.
    expect(screen.getByText('No webhook endpoints yet.')).toBeInTheDocument();
  });
});
