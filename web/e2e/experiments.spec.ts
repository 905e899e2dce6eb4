import { expect as baseExpect, test, type Browser, type Locator } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, blueprintFromPhoto, collectErrors, signUpAndSignIn, snap } from './helpers';

/*
 * Issue 52: a merchant starts a two-arm experiment from the product page; shoppers in separate
 * browsers are split between the page as it is and the variation, each keeps their arm on reload,
 * the results screen shows both arms with the visitors the pages counted, and "Make this the
 * default" puts the variation on the live page for everyone. Every wait is on a condition.
 *
 * Issue 52's presentation fields ride along: the merchant sets the page's exposure and opening
 * variant in the configurator's viewer settings, and the variation has its own exposure, loading
 * picture and opening variant. What the shopper gets is read from model-viewer's *properties* in
 * Chromium (React 19 and the share page both have to hand it a number, not text).
 */
test.setTimeout(300_000);
const expect = baseExpect.configure({ timeout: 30_000 });

interface Results {
  arms: { id: string; name: string; control: boolean; visitors: number }[];
}

type ViewerProps = HTMLElement & { exposure?: unknown; variantName?: unknown };

/**
 * A new shopper's first visit: the arm the page names, its camera, and what model-viewer shows:
 * its exposure and variant properties (read once the element is defined, so they are model-viewer's
 * own reading of the page), the variant button pressed, and whether a picture shows while loading.
 */
async function shopper(browser: Browser, url: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  // Read at once: a page outside any experiment has no such meta, and a locator would wait for one.
  const [arm, orbit] = await page.evaluate(() => [
    document.querySelector('meta[name="p3d-arm"]')?.getAttribute('content') ?? null,
    document.querySelector('model-viewer')?.getAttribute('camera-orbit') ?? null,
  ]);
  await page.waitForFunction(() => !!customElements.get('model-viewer'));
  const view = await page.evaluate(() => {
    const el = document.querySelector('model-viewer') as ViewerProps | null;
    return {
      exposure: el?.exposure ?? null,
      variant: el?.variantName ?? null,
      pressed: document.querySelector('.p3d-variant[aria-pressed="true"]')?.getAttribute('data-variant') ?? null,
      poster: !!el?.hasAttribute('poster') || !!document.querySelector('model-viewer [slot="poster"]'),
    };
  });
  return { context, page, arm, orbit, ...view };
}

/** Moves a range input the way a keyboard user does (Home, then one step at a time) to `to`. */
async function slide(slider: Locator, to: number, min = 0.25, step = 0.05) {
  await slider.focus();
  await slider.press('Home');
  for (let i = 0; i < Math.round((to - min) / step); i++) await slider.press('ArrowRight');
  await expect(slider).toHaveValue(String(to));
}

test('a two-arm experiment from the product page: shoppers split and keep their arm, results show both, the winner becomes the default', async ({ page, browser }, testInfo) => {
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'experiment');
  const api = new Api(page.request, token);
  await api.call('post', '/api/subscription/trial', {});
  const blueprintId = await blueprintFromPhoto(api, page.request, productPhotoPNG(320, 400));
  const product = await api.call<{ id: string }>('post', '/api/products', { name: 'Reading lamp', blueprintId });
  const walnut = await api.call<{ id: string }>('post', `/api/products/${product.id}/variants`, { name: 'Walnut', material: 'matte-black' });
  const pub = await api.call<{ shareURL: string }>('post', `/api/products/${product.id}/publish`, {});
  let liveOrbit: string | null = null;

  await test.step("the merchant sets the exposure and the opening variant in the product's viewer settings; the live page shows them", async () => {
    await page.goto(`/workspace/product/${product.id}?tab=configurator`);
    const configurator = page.getByRole('region', { name: 'Configurator' });
    const settings = configurator.getByTestId('viewer-settings');
    await slide(settings.getByLabel('Exposure'), 1.4);
    await expect(settings.getByTestId('exposure-value')).toHaveText('1.40');
    // The preview follows the slider at once, as model-viewer's number property.
    await expect
      .poll(() =>
        page.evaluate(() => {
          const el = document.querySelector('.configurator model-viewer') as ViewerProps | null;
          return customElements.get('model-viewer') && el ? el.exposure : null;
        }),
      )
      .toBe(1.4);
    await settings.getByLabel('Opens on variant').selectOption({ label: 'Walnut' });
    await expect(configurator.getByLabel('Variant', { exact: true })).toHaveValue(walnut.id);
    await snap(page, 'experiment-viewer-settings', testInfo);
    const put = page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/api/products/${product.id}/presets`));
    await configurator.getByRole('button', { name: 'Save', exact: true }).click();
    expect((await put).status()).toBe(200);
    const saved = await api.call<{ presets: Record<string, unknown> }>('get', `/api/products/${product.id}`);
    expect(saved.presets).toMatchObject({ exposure: 1.4, poster: 'model', defaultVariantId: walnut.id });
    // The live page follows the product's edits: a new shopper (outside any experiment) gets them.
    await expect
      .poll(async () => {
        const s = await shopper(browser, pub.shareURL);
        await s.context.close();
        liveOrbit = s.orbit;
        return { arm: s.arm, exposure: s.exposure, variant: s.variant, pressed: s.pressed };
      })
      .toEqual({ arm: null, exposure: 1.4, variant: walnut.id, pressed: walnut.id });
  });

  await test.step('the merchant starts the experiment from the product page', async () => {
    await page.goto(`/workspace/product/${product.id}?tab=experiments`);
    const form = page.getByRole('form', { name: 'New experiment' });
    await form.getByLabel('Goal').selectOption({ label: 'Store clicks' });
    await form.getByLabel('Name').fill('Close-up');
    await form.getByLabel('Camera').fill('30deg 70deg 80%');
    await form.getByLabel('Auto-rotate').uncheck();
    // The variation starts from the page's own exposure (1.40) and gets its own.
    await expect(form.getByTestId('experiment-exposure-value')).toHaveText('1.40');
    await slide(form.getByLabel('Exposure'), 0.6);
    await expect(form.getByTestId('experiment-exposure-value')).toHaveText('0.60');
    await form.getByLabel('While the model loads').selectOption({ label: 'Loading bar only' });
    await form.getByLabel('Opens on variant').selectOption({ label: 'Default' });
    await snap(page, 'experiment-new', testInfo);
    await form.getByRole('button', { name: 'Start experiment' }).click();
    await expect(page.getByTestId('experiment-results')).toBeVisible();
    await expect(page.getByTestId('experiment-decision')).toContainText('No clear winner yet');
  });

  const experiments = await api.call<{ items: { id: string; arms: { id: string; name: string; preset: Record<string, unknown> }[] }[] }>(
    'get',
    `/api/products/${product.id}/experiments`,
  );
  const experiment = experiments.items[0];
  const [control, closeUp] = experiment.arms;
  expect(control.preset).toMatchObject({ exposure: 1.4, poster: 'model' });
  expect(closeUp.preset).toMatchObject({ exposure: 0.6, poster: 'none', defaultVariant: 'v1' });
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
    // Each shopper gets their arm's exposure as model-viewer's number, and its opening variant.
    expect({ exposure: a.exposure, variant: a.variant, pressed: a.pressed }).toEqual({ exposure: 1.4, variant: walnut.id, pressed: walnut.id });
    expect({ exposure: b.exposure, variant: b.variant, pressed: b.pressed, poster: b.poster }).toEqual({ exposure: 0.6, variant: 'v1', pressed: 'v1', poster: false });
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
    await expect(results.getByTestId('arm-control').getByTestId('arm-preset')).toContainText('exposure 1.40 · picture while loading');
    await expect(results.getByTestId('arm-variation').getByTestId('arm-preset')).toContainText('exposure 0.60 · loading bar only · opens on Default');
    await snap(page, 'experiment-results', testInfo);
    await results.getByTestId('arm-variation').getByRole('button', { name: 'Make this the default' }).click();
    await expect(page.getByRole('form', { name: 'New experiment' })).toBeVisible();
    await page.getByText('Past experiments (1)').click();
    await expect(page.getByText('Close-up made the default')).toBeVisible();
    // Every shopper now sees the variation's camera, exposure and opening variant, outside any experiment.
    await expect
      .poll(async () => {
        const s = await shopper(browser, pub.shareURL);
        await s.context.close();
        return [s.arm, s.orbit, s.exposure, s.variant, s.poster];
      })
      .toEqual([null, '30deg 70deg 80%', 0.6, 'v1', false]);
    const applied = await api.call<{ presets: Record<string, unknown> }>('get', `/api/products/${product.id}`);
    expect(applied.presets).toMatchObject({ cameraOrbit: '30deg 70deg 80%', autospin: false, exposure: 0.6, poster: 'none', defaultVariantId: 'v1' });
  });
  expect(errors).toEqual([]);
});
