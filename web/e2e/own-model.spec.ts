import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { productPhotoPNG } from './fixtures/product-photo';
import { Api, collectErrors, signUpAndSignIn, type Envelope } from './helpers';

/**
 * The review's crafted model (issue 28 item 1): a small .gltf whose one POINTS mesh of `vertices`
 * zero-filled vertices (no buffer view) is drawn `nodes` times.
 */
function instancedPoints(vertices: number, nodes: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      asset: { version: '2.0' },
      accessors: [{ componentType: 5126, type: 'VEC3', count: vertices, min: [0, 0, 0], max: [1, 1, 1] }],
      meshes: [{ primitives: [{ attributes: { POSITION: 0 }, mode: 0 }] }],
      nodes: [{ children: new Array(nodes).fill(1) }, { mesh: 0 }],
      scenes: [{ nodes: [0] }],
      scene: 0,
    }),
  );
}

test('own model: uploaded from the configurator, prepared by the worker, shown; a crafted one is refused with its message', async ({ page }) => {
  test.setTimeout(400_000); // software WebGL and a shared CPU: the viewer loads slowly here
  const errors = collectErrors(page);
  const token = await signUpAndSignIn(page, 'ownmodel');
  const api = new Api(page.request, token);
  const up = await page.request.post('/api/uploads/content', {
    headers: { Authorization: `Bearer ${token}` },
    multipart: { file: { name: 'vase.png', mimeType: 'image/png', buffer: productPhotoPNG(160, 200) } },
  });
  const uploaded = ((await up.json()) as Envelope<{ id?: string; uploadId?: string; imageURL?: string }>).data;
  const uploadId = uploaded.uploadId ?? uploaded.id ?? '';
  expect(uploadId).not.toBe('');
  const draft = await api.call<{ id: string; status: string }>('post', '/api/products', { name: 'Own table', uploadId });
  expect(draft.status).toBe('draft');

  await page.goto(`/workspace/add-product?step=configurator&product=${draft.id}`);
  const input = page.getByTestId('own-model-input');
  await input.setInputFiles({ name: 'table.glb', mimeType: 'model/gltf-binary', buffer: readFileSync('public/demo/table/model.glb') });
  await expect
    .poll(async () => (await api.call<{ status: string; source: string }>('get', `/api/products/${draft.id}`)).source, { timeout: 120_000 })
    .toBe('upload');
  await expect(page.getByText('Use my own 3D file')).toBeVisible({ timeout: 120_000 });
  await expect(page.locator('.configurator__viewer .model-viewer')).toHaveAttribute('data-model-state', 'loaded', { timeout: 120_000 });

  await input.setInputFiles({ name: 'points.gltf', mimeType: 'model/gltf+json', buffer: instancedPoints(12_000_000, 99_990) });
  await expect(page.getByText("The model's data would take more than 100 MB once read.", { exact: false })).toBeVisible({ timeout: 120_000 });
  expect((await api.call<{ source: string }>('get', `/api/products/${draft.id}`)).source).toBe('upload');
  // The refusal's 400 is expected (the browser logs every 4xx); nothing else may fail.
  expect(errors.filter((e) => !(e.includes('status of 400') && e.includes(`/api/products/${draft.id}/model`)))).toEqual([]);
});
