import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from '@playwright/test';
import { collectErrors, signUpAndSignIn, snap } from './helpers';

/**
 * Settings → Webhooks against the real api + worker (issue 17): add an endpoint, copy the secret
 * shown once, "Send test event", and the delivery log reports what the receiver answered. The
 * receiver runs in this test process on 127.0.0.1, which the server only calls because ops/test.sh
 * sets WEBHOOK_ALLOW_PRIVATE=true (production refuses loopback addresses).
 */

interface Received {
  event: string | undefined;
  delivery: string | undefined;
  signature: string;
  body: string;
}

function verify(secret: string, header: string, body: string): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2)));
  const want = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest();
  const got = Buffer.from(parts.v1 ?? '', 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}

test('add a webhook endpoint, send a test event, read the delivery log', async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  const errors = collectErrors(page);
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({
        event: req.headers['photo3d-event'] as string | undefined,
        delivery: req.headers['photo3d-delivery'] as string | undefined,
        signature: String(req.headers['photo3d-signature'] ?? ''),
        body,
      });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  try {
    await signUpAndSignIn(page, 'hooks');
    await page.goto('/workspace/settings');
    const panel = page.getByRole('region', { name: 'Webhooks' });
    await expect(panel.getByText('No webhook endpoints yet.')).toBeVisible({ timeout: 30_000 });

    await panel.getByLabel('Endpoint URL').fill(`http://127.0.0.1:${port}/photo3d`);
    await panel.getByRole('checkbox', { name: /A 3D model is ready/ }).check();
    await panel.getByRole('checkbox', { name: /A shopper left an email/ }).check();
    await panel.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await panel.getByTestId('webhook-secret').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);

    const item = panel.getByRole('listitem', { name: `Webhook http://127.0.0.1:${port}/photo3d` });
    await expect(item.getByText('lead.captured')).toBeVisible();
    await item.getByRole('button', { name: 'Send test event' }).click();
    await expect(item.getByText('Test event queued')).toBeVisible();

    // The worker sends it; the log (polled while pending, or refreshed) reports the answer.
    const row = item.getByRole('row').filter({ hasText: 'webhook.test' });
    await expect(async () => {
      await item.getByRole('button', { name: 'Refresh' }).click();
      await expect(row).toContainText('Delivered', { timeout: 2_000 });
    }).toPass({ timeout: 90_000 });
    await expect(row).toContainText('200');
    await snap(page, 'webhooks-delivered', testInfo);

    expect(received).toHaveLength(1);
    expect(received[0].event).toBe('webhook.test');
    expect(verify(secret, received[0].signature, received[0].body)).toBe(true);
    expect(JSON.parse(received[0].body)).toMatchObject({ type: 'webhook.test' });

    // The secret is not shown again after a reload.
    await page.reload();
    await expect(page.getByRole('listitem', { name: `Webhook http://127.0.0.1:${port}/photo3d` })).toBeVisible({ timeout: 30_000 });
    await expect(page.getByText(secret)).toHaveCount(0);
    expect(errors).toEqual([]);
  } finally {
    server.close();
  }
});
