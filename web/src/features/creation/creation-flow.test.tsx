import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { MSG_INVALID_TYPE, MSG_NO_IMAGE_URL, MSG_PROCESS_FAILED, MSG_TOO_LARGE } from '../../entities/creation/creation-rules';
import ProcessingPage from './processing-page';
import UploadPage from './upload-page';

const uploadRoutes = [
  { path: '/workspace/upload', element: <UploadPage /> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
  { path: '/workspace', element: <p>home page</p> },
  { path: '/workspace/subscription', element: <p>subscription page</p> },
];
const processingRoutes = [
  { path: '/processing/:jobId', element: <ProcessingPage /> },
  { path: '/processing', element: <ProcessingPage /> },
  { path: '/preview/:jobId', element: <p>preview page</p> },
  { path: '/workspace', element: <p>home page</p> },
  { path: '/workspace/blueprints', element: <p>blueprints page</p> },
];

const png = (name = 'vase.png', size = 2_464_153, type = 'image/png') => new File([new Uint8Array(size)], name, { type });
/** What the page sent, without its read of the person's role (GET /api/workspaces, issue 51). */
const sent = <T extends { url: string }>(calls: T[]) => calls.filter((c) => !c.url.startsWith('/api/workspaces'));
const fail = (status: number, message?: string) =>
  jsonResponse(message ? { success: false, error: { code: 'x', message } } : { success: false, error: { code: 'x' } }, status);

beforeEach(() => {
  signIn();
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:preview') });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});
afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

async function chooseAndSubmit(file: File) {
  const user = userEvent.setup({ applyAccept: false });
  await user.upload(screen.getByTestId('upload-input'), file);
  await user.click(await screen.findByRole('button', { name: 'Use This Photo' }));
  return user;
}

describe('upload screen', () => {
  it('validates type and size with the spec messages before sending anything', async () => {
    const { calls } = stubFetch({});
    renderRoutes(uploadRoutes, ['/workspace/upload']);
    expect(screen.getByRole('heading', { name: 'Upload & Review' })).toBeInTheDocument();
    const user = userEvent.setup({ applyAccept: false });
    await user.upload(screen.getByTestId('upload-input'), new File(['%PDF'], 'spec.pdf', { type: 'application/pdf' }));
    expect(screen.getByRole('alert')).toHaveTextContent(MSG_INVALID_TYPE);
    await user.upload(screen.getByTestId('upload-input'), png('big.png', 10_485_761));
    expect(screen.getByRole('alert')).toHaveTextContent(MSG_TOO_LARGE);
    expect(sent(calls)).toHaveLength(0);
  });

  it('previews name and size, Retake clears, Back to Home goes to /workspace', async () => {
    stubFetch({});
    const { router } = renderRoutes(uploadRoutes, ['/workspace/upload']);
    const user = userEvent.setup();
    await user.upload(screen.getByTestId('upload-input'), png());
    expect(screen.getByText('vase.png')).toBeInTheDocument();
    expect(screen.getByText('2.35 MB')).toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Preview of vase.png' })).toHaveAttribute('src', 'blob:preview');
    expect(screen.queryByRole('button', { name: 'Back to Home' })).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retake / Choose Another' }));
    expect(screen.queryByText('vase.png')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Back to Home' }));
    expect(router.state.location.pathname).toBe('/workspace');
  });

  it('uploads through the signed URL, starts a job and opens processing', async () => {
    let resolveJob: (r: Response) => void = () => {};
    const { calls } = stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 201, headers: { Location: '/blobs/uploads/up1.png' } }),
      'POST /api/jobs': () => new Promise<Response>((r) => (resolveJob = r)),
    });
    const { router } = renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    expect(await screen.findByRole('button', { name: /Processing\.\.\./ })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Retake / Choose Another' })).toBeDisabled();
    resolveJob(jsonResponse({ success: true, data: { id: 'job-1', status: 'queued' } }, 201));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-1'));
    const out = sent(calls);
    expect(out.map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/uploads', 'PUT /blobs/uploads/up1?sig=abc', 'POST /api/jobs']);
    expect(out[0].body).toEqual({ filename: 'vase.png', contentType: 'image/png', size: 2_464_153 });
    expect(out[1].headers.get('Content-Type')).toBe('image/png');
    expect(out[2].body).toEqual({ imageURL: '/blobs/uploads/up1.png' });
  });

  it('falls back to the multipart content upload when the PUT fails', async () => {
    const { calls } = stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 502 }),
      'POST /api/uploads/content': () => ({ url: '/blobs/uploads/up2', imageURL: '/blobs/uploads/up2.png', publicURL: '/blobs/uploads/up2' }),
      'POST /api/jobs': () => ({ id: 'job-2', status: 'queued' }),
    });
    const { router } = renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-2'));
    const form = calls.find((c) => c.url === '/api/uploads/content')?.body as FormData;
    expect((form.get('file') as File).name).toBe('vase.png');
    expect(calls.at(-1)?.body).toEqual({ imageURL: '/blobs/uploads/up2.png' });
  });

  it('shows the direct upload status when the fallback says nothing', async () => {
    stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 503 }),
      'POST /api/uploads/content': () => fail(500),
    });
    renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    expect(await screen.findByRole('alert')).toHaveTextContent('Upload failed with status 503');
    expect(screen.getByRole('button', { name: 'Use This Photo' })).toBeEnabled();
  });

  it("shows the server's message, and the no-URL message", async () => {
    stubFetch({
      'POST /api/uploads': () => fail(422, 'This photo is too small. Use one at least 256 pixels on each side.'),
      'POST /api/uploads/content': () => fail(422, 'This photo is too small. Use one at least 256 pixels on each side.'),
    });
    renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    expect(await screen.findByRole('alert')).toHaveTextContent('This photo is too small. Use one at least 256 pixels on each side.');

    vi.unstubAllGlobals();
    stubFetch({ 'POST /api/uploads': () => fail(500), 'POST /api/uploads/content': () => ({}) });
    await userEvent.click(screen.getByRole('button', { name: 'Use This Photo' }));
    await waitFor(() => expect(screen.getByRole('alert')).toHaveTextContent(MSG_NO_IMAGE_URL));
  });

  it('explains a 402 from POST /api/jobs and links to the subscription page', async () => {
    stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 200 }),
      'POST /api/jobs': () => fail(402, 'You have no AI credits left. Upgrade to Pro or buy a credit pack.'),
    });
    const { router } = renderRoutes(uploadRoutes, ['/workspace/upload']);
    const user = await chooseAndSubmit(png());
    expect(await screen.findByRole('alert')).toHaveTextContent('You have no AI credits left. Upgrade to Pro or buy a credit pack.');
    await user.click(screen.getByRole('link', { name: 'See plans and credits' }));
    expect(router.state.location.pathname).toBe('/workspace/subscription');
  });

  it('out of credits: the refusal appears next to Use This Photo and is scrolled into view (issue 50 item 9)', async () => {
    const scrolled: Element[] = [];
    Object.defineProperty(Element.prototype, 'scrollIntoView', {
      configurable: true,
      value: function (this: Element) {
        scrolled.push(this);
      },
    });
    stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 200 }),
      'POST /api/jobs': () => fail(402, 'Not enough AI credits. Buy more credits or upgrade your plan on the Subscription page.'),
    });
    renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Not enough AI credits.');
    // In the photo's card, right under the button that was clicked, above "Add more angles".
    const card = screen.getByRole('region', { name: 'Photo preview' });
    expect(card).toContainElement(alert);
    const button = screen.getByRole('button', { name: 'Use This Photo' });
    expect(button.compareDocumentPosition(alert) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await waitFor(() => expect(scrolled).toContain(screen.getByTestId('upload-failure')));
    Reflect.deleteProperty(Element.prototype, 'scrollIntoView');
  });

  it('falls back to the generic failure message', async () => {
    stubFetch({
      'POST /api/uploads': () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' }),
      'PUT /blobs/uploads/up1': () => new Response(null, { status: 200 }),
      'POST /api/jobs': () => fail(500),
    });
    renderRoutes(uploadRoutes, ['/workspace/upload']);
    await chooseAndSubmit(png());
    expect(await screen.findByRole('alert')).toHaveTextContent(MSG_PROCESS_FAILED);
  });
});

const job = (over: Record<string, unknown>) => ({
  id: 'job-1',
  status: 'processing',
  progress: 0,
  step: null,
  imageURL: '/blobs/uploads/up1.png',
  modelURL: null,
  thumbnailURL: null,
  assetId: null,
  parts: [],
  stats: null,
  error: null,
  ...over,
});

describe('processing screen', () => {
  it('without a job id goes to /workspace', async () => {
    stubFetch({});
    const { router } = renderRoutes(processingRoutes, ['/processing']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace'));
  });

  it("shows the server's progress and step, polls every 2 s, then opens the preview", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const answers = [
      job({ status: 'queued', progress: 0 }),
      job({ progress: 40, step: 'Assembling 3D Model' }),
      job({ status: 'completed', progress: 100, step: 'Finalizing Details', modelURL: '/m.glb' }),
    ];
    const { calls } = stubFetch({
      'GET /api/jobs/job-1': () => answers.shift() ?? answers.at(-1),
      'GET /api/jobs/typical-duration': () => ({ medianSeconds: 2.4, samples: 50 }),
    });
    const { router } = renderRoutes(processingRoutes, ['/processing/job-1']);
    expect(screen.getByRole('heading', { name: 'Processing Your Blueprint' })).toBeInTheDocument();
    expect(await screen.findByText(/Waiting for a worker/)).toBeInTheDocument();
    // Issue 29 item 15: the hint is the server's median of real builds, not a "30-90 seconds" promise.
    expect(await screen.findByText('Builds here usually take about 2 seconds.')).toBeInTheDocument();
    expect(screen.queryByText(/30-90 seconds/)).not.toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Your uploaded product photo' })).toHaveAttribute('src', '/blobs/uploads/up1.png');

    await act(() => vi.advanceTimersByTimeAsync(2000));
    await waitFor(() => expect(screen.getByTestId('processing-percent')).toHaveTextContent('40%'));
    expect(screen.getByRole('progressbar')).toHaveAttribute('aria-valuenow', '40');
    expect(screen.getByText('Assembling 3D Model', { selector: 'li span' }).closest('li')).toHaveAttribute('aria-current', 'step');
    expect(screen.getByText('Analyzing Image', { selector: 'li span' }).closest('li')).toHaveClass('processing__step--done');

    await act(() => vi.advanceTimersByTimeAsync(2000));
    await waitFor(() => expect(router.state.location.pathname).toBe('/preview/job-1'));
    expect(calls.filter((c) => c.url === '/api/jobs/job-1')).toHaveLength(3);
  });

  it("a failed job stays on screen with the server's message and Retry until the merchant leaves", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { calls } = stubFetch({ 'GET /api/jobs/job-1': () => job({ status: 'failed', progress: 30, step: 'Deconstructing Components', error: 'We could not find a product in this photo.' }) });
    const { router } = renderRoutes([...processingRoutes, { path: '/workspace/upload', element: <p>upload page</p> }], ['/processing/job-1']);
    expect(await screen.findByRole('alert')).toHaveTextContent('We could not find a product in this photo.');
    // Issue 50 item 8: it used to leave for /workspace after 4 s, before Retry could be pressed.
    await act(() => vi.advanceTimersByTimeAsync(60_000));
    expect(router.state.location.pathname).toBe('/processing/job-1');
    expect(screen.getByRole('alert')).toHaveTextContent('We could not find a product in this photo.');
    expect(screen.getByRole('alert')).not.toHaveTextContent(/Returning/);
    expect(screen.getByRole('button', { name: 'Retry' })).toBeEnabled();
    // Polling stopped with the failure: a minute on screen asks the server nothing more.
    expect(calls.filter((c) => c.url === '/api/jobs/job-1')).toHaveLength(1);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('button', { name: 'Upload a different photo' }));
    expect(router.state.location.pathname).toBe('/workspace/upload');
    act(() => void router.navigate(-1));
    await user.click(await screen.findByRole('button', { name: 'Back to Home' }));
    expect(router.state.location.pathname).toBe('/workspace');
  });

  it('photos the builder refused: no Retry (it would be refused again), and the way to other photos leads', async () => {
    const reason = 'Photo 8: the product runs off the edge of the frame; step back or zoom out. Shoot it again and upload the spin set again. No credit was used.';
    const { calls } = stubFetch({
      'GET /api/jobs/job-1': () =>
        job({ status: 'failed', progress: 10, step: 'Analyzing Image', error: reason, retryable: false, views: 24, spin: { rings: [{ photos: 12, elevation: 0 }, { photos: 12, elevation: 30 }] } }),
    });
    const { router } = renderRoutes([...processingRoutes, { path: '/workspace/upload/spin', element: <p>spin page</p> }], ['/processing/job-1']);
    expect(await screen.findByRole('alert')).toHaveTextContent(reason);
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    const again = screen.getByRole('button', { name: 'Upload another spin set' });
    expect(again).toHaveClass('btn--primary');
    await userEvent.click(again);
    expect(router.state.location.pathname).toBe('/workspace/upload/spin');
    expect(calls.filter((c) => c.method === 'POST')).toEqual([]);
  });

  it('a photo without a separable product: the failed job shows the sentence the server gave', async () => {
    const reason = 'We could not separate the product from its background. Use a photo of the product alone on a plain background, or standing clear on a table or floor with nothing else in view.';
    stubFetch({ 'GET /api/jobs/job-1': () => job({ status: 'failed', progress: 10, step: 'Analyzing Image', error: reason }) });
    renderRoutes(processingRoutes, ['/processing/job-1']);
    expect(await screen.findByRole('alert')).toHaveTextContent(reason);
    expect(screen.getByText('Analyzing Image', { selector: 'li span' }).closest('li')).toHaveTextContent('(failed)');
  });

  it('Retry on a failed job starts a new attempt and follows it; a refusal is shown', async () => {
    let credits = true;
    const { calls } = stubFetch({
      'GET /api/jobs/job-1': () => job({ status: 'failed', progress: 30, step: 'Deconstructing Components', error: 'The build stopped.' }),
      'GET /api/jobs/job-2': () => job({ id: 'job-2', status: 'queued' }),
      'POST /api/jobs/job-1/retry': () =>
        credits
          ? job({ id: 'job-2', status: 'queued' })
          : jsonResponse({ success: false, error: { code: 'insufficient_credits', message: 'Not enough AI credits. Buy more credits or upgrade your plan on the Subscription page.' } }, 402),
    });
    const { router } = renderRoutes(processingRoutes, ['/processing/job-1']);
    const user = userEvent.setup();
    credits = false;
    await user.click(await screen.findByRole('button', { name: 'Retry' }));
    expect(await screen.findByText(/Not enough AI credits/)).toBeInTheDocument();
    expect(router.state.location.pathname).toBe('/processing/job-1');
    credits = true;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-2'));
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.url)).toEqual(['/api/jobs/job-1/retry', '/api/jobs/job-1/retry']);
    expect(await screen.findByText('Queued')).toBeInTheDocument();
  });

  it('a network error returns to /workspace', async () => {
    stubFetch({
      'GET /api/jobs/job-1': () => {
        throw new TypeError('Failed to fetch');
      },
    });
    const { router } = renderRoutes(processingRoutes, ['/processing/job-1']);
    await waitFor(() => expect(router.state.location.pathname).toBe('/workspace'));
  });

  it('View All Blueprints opens the list', async () => {
    stubFetch({ 'GET /api/jobs/job-1': () => job({ progress: 10, step: 'Analyzing Image' }) });
    const { router } = renderRoutes(processingRoutes, ['/processing/job-1']);
    await userEvent.click(screen.getByRole('button', { name: 'View All Blueprints' }));
    expect(router.state.location.pathname).toBe('/workspace/blueprints');
  });
});
