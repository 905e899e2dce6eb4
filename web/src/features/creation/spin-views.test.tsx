import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import PreviewPage from './preview-page';
import ProcessingPage from './processing-page';
import UploadPage from './upload-page';

// The preview's viewer needs WebGL; here its lazy import resolves at once.
vi.mock('../../components/model-viewer/load-model-viewer', () => ({
  MODEL_VIEWER_LOAD_ERROR: 'Failed to load model-viewer',
  loadModelViewer: () => Promise.resolve(),
}));

const routes = [
  { path: '/workspace/upload', element: <UploadPage /> },
  { path: '/processing/:jobId', element: <ProcessingPage /> },
  { path: '/preview/:jobId', element: <PreviewPage /> },
];

const job = (over: Record<string, unknown>) => ({
  id: 'job-1',
  name: 'Spun vase',
  status: 'processing',
  progress: 30,
  step: 'Deconstructing Components',
  imageURL: '/blobs/uploads/p1.png',
  modelURL: null,
  thumbnailURL: null,
  assetId: null,
  parts: [],
  stats: null,
  fidelity: null,
  views: 1,
  spin: null,
  error: null,
  ...over,
});
const spin = { rings: [{ photos: 12, elevation: 0 }, { photos: 12, elevation: 30 }] };

beforeEach(() => signIn());
afterEach(() => vi.unstubAllGlobals());

describe('spin sets on the other creation screens', () => {
  it('the upload page offers "Create from a spin set or video"', async () => {
    stubFetch({});
    renderRoutes(routes, ['/workspace/upload']);
    expect(screen.getByRole('link', { name: 'Create from a spin set or video' })).toHaveAttribute('href', '/workspace/upload/spin');
  });

  it('processing a spin build says how many photos and rings, and what each step does to them', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => job({ views: 24, spin }), 'GET /api/jobs/typical-duration': () => ({ medianSeconds: 2.4, samples: 50 }) });
    renderRoutes(routes, ['/processing/job-1']);
    expect(await screen.findByTestId('processing-views')).toHaveTextContent('Built from 24 photos in 2 rings');
    // The server's median is of all builds, mostly one-photo ones: not quoted for a spin set.
    expect(screen.queryByTestId('processing-typical')).not.toBeInTheDocument();
    const steps = within(screen.getByRole('list', { name: 'Steps' })).getAllByRole('listitem');
    expect(steps.map((s) => s.textContent)).toEqual([
      expect.stringContaining('Analyzing ImageReading and cutting out every photo'),
      expect.stringContaining("Deconstructing ComponentsFinding the turntable's cameras"),
      expect.stringContaining('Assembling 3D ModelCarving the shape from every silhouette'),
      expect.stringContaining('Finalizing DetailsTexturing and packing the model'),
    ]);
  });

  it('a failed spin build offers another spin set, not another photo', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'failed', views: 24, spin, error: 'The turntable could not be found in these photos.' }),
      'GET /api/jobs/typical-duration': () => ({ medianSeconds: null, samples: 0 }),
    });
    const { router } = renderRoutes([...routes, { path: '/workspace/upload/spin', element: <p>spin page</p> }], ['/processing/job-1']);
    expect(await screen.findByRole('alert')).toHaveTextContent('The turntable could not be found in these photos.');
    // It built nothing, so it says what was sent, not what it was "built from".
    expect(screen.getByTestId('processing-views')).toHaveTextContent(/^24 photos in 2 rings$/);
    expect(screen.queryByRole('button', { name: 'Upload a different photo' })).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Upload another spin set' }));
    expect(router.state.location.pathname).toBe('/workspace/upload/spin');
  });

  it('a one-photo build has no step notes', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => job({}), 'GET /api/jobs/typical-duration': () => ({ medianSeconds: null, samples: 0 }) });
    renderRoutes(routes, ['/processing/job-1']);
    expect(await screen.findByTestId('processing-views')).toHaveTextContent('Built from 1 photo');
    expect(screen.queryByText('Reading and cutting out every photo')).not.toBeInTheDocument();
  });

  it('the preview of a spin build: its views line, "not measured", and spin-set tips', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'completed', progress: 100, modelURL: '/m.glb', views: 24, spin }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('preview-views')).toHaveTextContent('Built from 24 photos in 2 rings');
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Mesh fidelity not measured');
    expect(screen.getByText(/It is carved from the outlines of 24 photos and has no fidelity score/)).toBeInTheDocument();
    expect(screen.queryByText(/a quarter turn apart/)).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Capture a spin set for a faithful model' })).not.toBeInTheDocument();
  });

  it('the preview of a spin build names the photos it left out, and why', async () => {
    const reason = 'its outline disagrees with the other photos';
    const dropped = [23, 4, 5].map((photo) => ({ photo, agreement: 0.5, reason }));
    stubFetch({
      'GET /api/jobs/job-1': () =>
        job({ status: 'completed', progress: 100, modelURL: '/m.glb', views: 24, spin, fidelity: 98, stats: { shapeKind: 'turntable', spin: { coherence: 0.9, dropped } } }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('spin-left-out')).toHaveTextContent(
      'Photos 4, 5 and 23 were left out of the model: their outlines disagree with the other photos (a shadow, a reflection or the turntable taken for the product, or part of the product lost against the backdrop). The model is carved from the other 21.',
    );
  });

  it('a photo in which no product could be told from the backdrop is named apart, with its own reason', async () => {
    const dropped = [
      { photo: 13, agreement: 0.15, reason: 'the product could not be told from the background in this photo', kind: 'no-product' },
      { photo: 6, agreement: 0.63, reason: 'its outline disagrees with the other photos', kind: 'outline' },
    ];
    stubFetch({
      'GET /api/jobs/job-1': () =>
        job({ status: 'completed', progress: 100, modelURL: '/m.glb', views: 16, spin, fidelity: 95, stats: { shapeKind: 'turntable', spin: { coherence: 0.9, dropped } } }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('spin-left-out')).toHaveTextContent(
      'Photo 6 was left out of the model: its outline disagrees with the other photos (a shadow, a reflection or the turntable taken for the product, or part of the product lost against the backdrop). Photo 13 was left out of the model: the product could not be told from the background in it. The model is carved from the other 14.',
    );
  });

  it('one frame of a video build left out is counted, not numbered; a build that kept every photo says nothing', async () => {
    const stats = { spin: { dropped: [{ photo: 7, agreement: 0.4, reason: 'r' }] } };
    stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'completed', progress: 100, modelURL: '/m.glb', views: 24, spin: { ...spin, videos: 2 }, fidelity: 90, stats }),
      'GET /api/jobs/job-2': () => job({ id: 'job-2', status: 'completed', progress: 100, modelURL: '/m.glb', views: 24, spin, fidelity: 90, stats: { spin: { coherence: 0.95 } } }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    const { unmount } = renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('spin-left-out')).toHaveTextContent(
      /^1 of the 24 frames taken from your videos was left out of the model: its outline disagrees with the other frames .* The model is carved from the other 23\.$/,
    );
    unmount();
    renderRoutes(routes, ['/preview/job-2']);
    expect(await screen.findByTestId('preview-views')).toHaveTextContent('Built from 24 photos in 2 rings');
    expect(screen.queryByTestId('spin-left-out')).not.toBeInTheDocument();
  });

  it('a low-fidelity one-photo preview offers a spin set as the way to a faithful model', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'completed', progress: 100, modelURL: '/m.glb', fidelity: 48 }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByRole('link', { name: 'Capture a spin set for a faithful model' })).toHaveAttribute('href', '/workspace/upload/spin');
  });

  it('a good one-photo preview does not', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'completed', progress: 100, modelURL: '/m.glb', fidelity: 91 }),
      'GET /api/blueprints': () => ({ items: [] }),
    });
    renderRoutes(routes, ['/preview/job-1']);
    expect(await screen.findByTestId('fidelity')).toHaveTextContent('Mesh fidelity 91%');
    expect(screen.queryByRole('link', { name: 'Capture a spin set for a faithful model' })).not.toBeInTheDocument();
  });
});
