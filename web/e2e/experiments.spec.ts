import { expect as baseExpect, test, type Browser } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, blueprintFromPhoto, collectErrors, signUpAndSignIn, snap } from './helpers';

/*
 * Issue 52: a merchant starts a two-arm experiment from the product page; shoppers in separate
 * browsers are split between the page as it is and the variation, each keeps their arm on reload,
 * the results screen shows both arms with the visitors the pages counted, and "Make this the
 * default" puts the variation on the live page for everyone. Every wait is on a condition.
 */
test.setTimeout(300_000);
const expect = baseExpect.configure({ timeout: 30_000 });

interface Results {
  arms: { id: string; name: string; control: boolean; visitors: number }[];
}

/** A new shopper's first visit: the arm the page names and its camera. */
async function shopper(browser: Browser, url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  // Read at once: a page outside any experiment has no such meta, and a locator would wait for one.
  const [arm, orbit] = await page.evaluate(() => [
    document.querySelector('meta[name="p3d-arm"]')?.getAttribute('content') ?? null,
    document.querySelector('model-viewer')?.getAttribute('camera-orbit') ?? null,
  ]);
  return { context, page, arm, orbit };
}

test('a two-arm experiment from the product page: shoppers split and keep their arm, results show both, the winner becomes the default', async ({ page, browser }, testInfo) => {
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'experiment');
  const api = new Api(page.request, token);
  await api.call('post', '/api/subscription/trial', {});
  const blueprintId = await blueprintFromPhoto(api, page.request, productPhotoPNG(320, 400));
  const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Reading lamp', blueprintId });
  const pub = await api.call<{ shareURL: string }>('post', `/api/products/${product.id}/publish`, {});
  const liveOrbit = await (async () => {
    const first = await shopper(browser, pub.shareURL);
    expect(first.arm, 'no experiment yet: no arm').toBeNull();
    await first.context.close();
    return first.orbit;
  })();

  await test.step('the merchant starts the experiment from the product page', async () => {
    await page.goto(`/workspace/product/${product.id}?tab=experiments`);
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByLabel('Goal').selectOption({ label: 'Store clicks' });
    await form.getByLabel('Name').fill('Close-up');
    await form.getByLabel('Camera').fill('30deg 70deg 80%');
    await form.getByLabel('Auto-rotate').uncheck();
    await snap(page, 'experiment-new', testInfo);
    await form.getByRole('button', { name: 'Start experiment' }).click();
    await expect(page.getByTestId('experiment-results')).toBeVisible();
    await expect(page.getByTestId('experiment-decision')).toContainText('No clear winner yet');
  });

  const experiments = await api.call<{ items: { id: string; arms: { id: string; name: string }[] }[] }>('get', `/api/products/${product.id}/experiments`);
  const experiment = experiments.items[0];
  const [control, closeUp] = experiment.arms;
  let visitors: number[] = [];

  await test.step('two shoppers see different presets, and each keeps their arm on reload', async () => {
    const seen = new Map<string, Awaited<ReturnType<typeof shopper>>>();
    // Each new browser gets its own cookie and so an arm: open shoppers until both arms are seen.
    // Every one of them is a visitor of its arm (its page sends the view), so all stay open until
    // their views are counted.
    const opened: Awaited<ReturnType<typeof shopper>>[] = [];
    for (let i = 0; i < 16 && seen.size < 2; i++) {
      const s = await shopper(browser, pub.shareURL);
      expect([control.id, closeUp.id]).toContain(s.arm);
      opened.push(s);
      if (!seen.has(s.arm!)) seen.set(s.arm!, s);
    }
    expect(seen.size, 'both arms among the shoppers').toBe(2);
    const a = seen.get(control.id)!;
    const b = seen.get(closeUp.id)!;
    expect(a.orbit).toBe(liveOrbit);
    expect(b.orbit).toBe('30deg 70deg 80%');
    // model-viewer reads its properties, not only the attributes: the variation does not spin.
    expect(await b.page.locator('model-viewer').evaluate((el) => (el as HTMLElement & { autoRotate?: boolean }).autoRotate)).toBe(false);
    for (const s of [a, b]) {
      await s.page.reload();
      await expect(s.page.locator('meta[name="p3d-arm"]')).toHaveAttribute('content', s.arm!);
    }
    await snap(b.page, 'experiment-variation', testInfo);
    // Each page's view beacon is counted in its arm: as many visitors as shoppers it was shown to.
    const expected = [control.id, closeUp.id].map((arm) => opened.filter((s) => s.arm === arm).length);
    console.log(`experiment shoppers per arm (control, variation): ${expected.join(', ')}`);
    await expect
      .poll(async () => (await api.call<Results>('get', `/api/experiments/${experiment.id}`)).arms.map((x) => x.visitors), { timeout: 30_000 })
      .toEqual(expected);
    visitors = expected;
    for (const s of opened) await s.context.close();
  });

  await test.step('the results show both arms, and making the variation the default puts it on the live page', async () => {
    await page.reload();
    const results = page.getByTestId('experiment-results');
    await expect(results.getByTestId('arm-control')).toContainText('Control');
    await expect(results.getByTestId('arm-control').getByRole('cell').first()).toHaveText(String(visitors[0]));
    await expect(results.getByTestId('arm-variation')).toContainText('Close-up');
    await expect(results.getByTestId('arm-variation').getByRole('cell').first()).toHaveText(String(visitors[1]));
    await snap(page, 'experiment-results', testInfo);
    await results.getByTestId('arm-variation').getByRole('button', { name: 'Make this the default' }).click();
    await expect(page.getByRole('form', { name: 'New experiment' })).toBeVisible();
    await page.getByText('Past experiments (1)').click();
    await expect(page.getByText('Close-up made the default')).toBeVisible();
    // Every shopper now sees the variation's camera, outside any experiment.
    await expect
      .poll(async () => {
        const s = await shopper(browser, pub.shareURL);
        await s.context.close();
        return [s.arm, s.orbit];
      })
      .toEqual([null, '30deg 70deg 80%']);
  });
  expect(errors).toEqual([]);
});
