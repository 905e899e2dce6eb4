import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import PreviewPage from './preview-page';

// The real viewer needs WebGL; here the lazy import resolves at once and the
// element is a plain unknown element whose `load` event the test fires.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

const routes = [
  { path: '/preview/:jobId', element: <PreviewPage /> },
  { path: '/workspace/preview/:jobId', element: <PreviewPage /> },
  { path: '/workspace/upload', element: <p>upload page</p> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];

const completed = {
  id: 'job-1',
  name: 'Blue Vase',
  status: 'completed',
  progress: 100,
  step: 'Finalizing Details',
  imageURL: '/img.png',
  modelURL: '/blobs/models/job-1.glb?sig=1',
  thumbnailURL: '/thumb.png',
  assetId: 'a1',
  parts: [
    { id: 'p1', name: 'Body', color: '#3355aa', share: 0.8 },
    { id: 'p2', name: 'Cap', color: '#222222', share: 0.2 },
  ],
  stats: {},
  error: '',
};

/** A fake three.js graph: Product → Body, Cap meshes, like the reconstructor's GLB. */
function fakeScene() {
  const node = (name: string, isMesh = false): Record<string, unknown> => ({
    name,
    visible: true,
    isMesh,
    userData: { name },
    parent: null,
    children: [] as unknown[],
    material: isMesh ? { name, wireframe: false } : undefined,
    traverse(cb: (o: unknown) => void) {
      cb(this);
      (this.children as { traverse: (c: typeof cb) => void }[]).forEach((c) => c.traverse(cb));
    },
  });
  const root = node('Product');
  const body = node('Body', true);
  const cap = node('Cap', true);
  body.parent = root;
  cap.parent = root;
  root.children = [body, cap];
  return { root, body, cap, scene: { model: root, queueRender: vi.fn() } };
}

beforeEach(() => signIn());
afterEach(() => vi.unstubAllGlobals());

async function loadViewer() {
  const el = await waitFor(() => {
    const e = document.querySelector('model-viewer');
    if (!e) throw new Error('no viewer yet');
    return e as unknown as HTMLElement & Record<string | symbol, unknown>;
  });
  const graph = fakeScene();
  el[Symbol('scene')] = graph.scene;
  Object.assign(el, {
    availableAnimations: ['Explode'],
    duration: 1,
    currentTime: 0,
    animationName: undefined,
    play: vi.fn(),
    pause: vi.fn(),
    // As model-viewer reports it once loaded: the viewer may attach its listeners
    // after the event below (it waits for the viewer script first).
    loaded: true,
  });
  el.dispatchEvent(new Event('load'));
  return { el, graph };
}

describe('model preview', () => {
  it('renders <model-viewer> with auto-rotate, camera controls and AR modes, and lists parts', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => completed, 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/workspace/preview/job-1']);
    expect(screen.getByRole('heading', { name: 'Model Preview' })).toBeInTheDocument();
    const { el } = await loadViewer();
    expect(el).toHaveAttribute('src', completed.modelURL);
    expect(el).toHaveAttribute('auto-rotate');
    expect(el).toHaveAttribute('camera-controls');
    expect(el).toHaveAttribute('ar');
    expect(el).toHaveAttribute('ar-modes', 'webxr scene-viewer quick-look');
    const list = await screen.findByTestId('parts-list');
    expect(within(list).getAllByRole('button').map((b) => b.textContent)).toEqual(['Body80%', 'Cap20%']);
    expect(await screen.findByText('Blue Vase')).toBeInTheDocument();
  });

  it('wireframe, exploded and solo change the scene', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => completed, 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    const { el, graph } = await loadViewer();
    const user = userEvent.setup();
    const wire = await screen.findByRole('button', { name: 'Wireframe View' });
    await waitFor(() => expect(wire).toBeEnabled());

    await user.click(wire);
    expect(wire).toHaveAttribute('aria-pressed', 'true');
    expect((graph.body.material as { wireframe: boolean }).wireframe).toBe(true);
    expect((graph.cap.material as { wireframe: boolean }).wireframe).toBe(true);
    await user.click(wire);
    expect((graph.body.material as { wireframe: boolean }).wireframe).toBe(false);

    await user.click(screen.getByRole('button', { name: 'Exploded View' }));
    expect(el.animationName).toBe('Explode');
    expect(el.play).toHaveBeenCalledWith({ repetitions: 1 });

    await user.click(screen.getByRole('button', { name: /^Cap/ }));
    await user.click(screen.getByRole('button', { name: 'Solo Mode' }));
    expect(graph.cap.visible).toBe(true);
    expect(graph.body.visible).toBe(false);
    await user.click(screen.getByRole('button', { name: /^Body/ }));
    expect(graph.body.visible).toBe(true);
    expect(graph.cap.visible).toBe(false);
    await user.click(screen.getByRole('button', { name: 'Solo Mode' }));
    expect(graph.body.visible && graph.cap.visible).toBe(true);
  });

  it("shows the server's mesh fidelity under the model, with tips only when it is low", async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, fidelity: 91 }), 'GET /api/blueprints': () => ({ items: [] }) });
    const { unmount } = renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('fidelity')).toHaveTextContent('Mesh fidelity 91%');
    expect(screen.queryByText(/Add three more photos/)).toBeNull();
    // A green score says what it measures: the photo's side, not the hidden ones (walk 4, H2).
    expect(screen.getByTestId('fidelity-caption')).toHaveTextContent('How closely the model matches your photo. The top, back and underside are estimated');
    expect(screen.queryByTestId('build-warnings')).toBeNull();
    unmount();

    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, fidelity: 48 }), 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('fidelity')).toHaveTextContent('Mesh fidelity 48% (low)');
    const tips = screen.getByText('Add three more photos from the sides and back for an accurate shape.').closest('[role="status"]') as HTMLElement;
    expect(tips).toHaveTextContent('part of this shape is estimated (mesh fidelity 48%)');
    expect(within(tips).getAllByRole('listitem')).toHaveLength(4);
  });

  it("a photo that cut the product off says so beside the model, in the builder's words", async () => {
    const cut =
      'The product runs off the right edge of the photo, so the model stops there: the part outside the photo is missing. ' +
      'For a faithful model, use a photo with the whole product in view and some space around it.';
    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, fidelity: 91, warnings: [cut, '', 7] }), 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    const box = await screen.findByTestId('build-warnings');
    // Only the sentences: an empty or malformed entry shows nothing.
    expect(within(box).getAllByRole('status')).toHaveLength(1);
    expect(within(box).getByRole('status')).toHaveTextContent(cut);
    // A high score does not hide it: the score measures the photo's side, which the frame cut.
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 91%');
  });

  it('a multi-photo build, which has no score, says so and asks for a look from every side (walk 4, H1)', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, fidelity: null, views: 4 }), 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    const badge = await screen.findByTestId('fidelity');
    expect(badge).toHaveTextContent('Mesh fidelity not measured');
    expect(badge).toHaveAttribute('data-low', 'unknown');
    expect(screen.getByTestId('preview-views')).toHaveTextContent('Built from 4 photos');
    const tips = screen.getByText('Check this model from every side before you publish.').closest('[role="status"]') as HTMLElement;
    expect(tips).toHaveTextContent('It is built from 4 photos and has no fidelity score');
    expect(within(tips).getByText(/a quarter turn apart/)).toBeInTheDocument();
    expect(screen.queryByTestId('fidelity-caption')).toBeNull();
  });

  it('a photo without a separable product shows the reason the server gave', async () => {
    const reason = 'We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view.';
    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, status: 'failed', modelURL: '', fidelity: null, error: reason }), 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByText(reason)).toBeInTheDocument();
    expect(screen.queryByTestId('fidelity')).toBeNull();
  });

  it('shows a clear state when the job has no model', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => ({ ...completed, status: 'failed', modelURL: '', error: 'No product found in the photo.' }), 'GET /api/blueprints': () => ({ items: [] }) });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByText('3D model not available')).toBeInTheDocument();
    expect(screen.getByText('No product found in the photo.')).toBeInTheDocument();
    expect(document.querySelector('model-viewer')).toBeNull();
    expect(screen.getByRole('button', { name: 'Share / Download' })).toBeDisabled();
  });

  it('a build whose photo was refused offers another photo, not Retry', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => ({ ...completed, status: 'failed', modelURL: '', retryable: false, error: 'We could not separate the product from its background.' }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByText('3D model not available')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    expect(screen.getByRole('link', { name: 'Upload a photo' })).toHaveClass('btn--primary');
  });

  it('Retry on a failed build starts a new attempt and opens its processing screen', async () => {
    const { calls } = stubFetch({
      'GET /api/jobs/job-1': () => ({ ...completed, status: 'failed', modelURL: '', error: 'The build stopped.' }),
      'GET /api/blueprints': () => ({ items: [] }),
      'POST /api/jobs/job-1/retry': () => ({ ...completed, id: 'job-2', status: 'queued', modelURL: '' }),
    });
    const { router } = renderRoutes(routes, ['/preview/job-1']);
    await userEvent.click(await screen.findByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-2'));
    expect(calls.some((c) => c.method === 'POST' && c.url === '/api/jobs/job-1/retry')).toBe(true);
  });

  it('Share / Download opens the modal; New Blueprint goes to upload', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => completed, 'GET /api/blueprints': () => ({ items: [] }) });
    const { router } = renderRoutes(routes, ['/preview/job-1']);
    const user = userEvent.setup();
    const open = await screen.findByRole('button', { name: 'Share / Download' });
    await waitFor(() => expect(open).toBeEnabled());
    await user.click(open);
    const dialog = screen.getByRole('dialog', { name: 'Share / Download' });
    expect(within(dialog).getAllByRole('button').map((b) => b.textContent)).toEqual(['Download 3D file (.glb)', 'Share Link', 'Cancel']);
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New Blueprint' }));
    expect(router.state.location.pathname).toBe('/workspace/upload');
  });
});
