import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { SpinCheck } from './spin-check';
import SpinPage from './spin-page';
import { spinPathFor } from './spin-rules';

/*
 * The spin page's video mode (issue 48, "Create from a spin set or video"): the choice, the
 * videos by camera height, every refusal made before anything is sent, the price, the uploads
 * one by one and the one build from them.
 */

const routes = [
  { path: '/workspace/upload/spin', element: <SpinPage /> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];
const mp4 = (name: string, type = 'video/mp4') => new File([new Uint8Array(4096)], name, { type });
const png = (name: string) => new File([new Uint8Array(2048)], name, { type: 'image/png' });

beforeEach(() => {
  signIn();
  let k = 0;
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => `blob:still-${++k}`) });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});
afterEach(() => vi.unstubAllGlobals());

/** The server: a ticket per file, the PUT answering Location (held or refused on demand), then POST /jobs. */
function server(
  opts: {
    failPut?: (name: string, attempt: number) => Response | null;
    holdPut?: (name: string) => Promise<void> | null;
    job?: () => unknown;
    credits?: number | null;
  } = {},
) {
  const attempts = new Map<string, number>();
  const stub = stubFetch({
    'GET /api/subscription': () => ({ aiCreditBalance: opts.credits === undefined ? 50 : opts.credits }),
    'POST /api/uploads': ({ body }) => {
      const name = (body as { filename: string }).filename;
      return { uploadId: `up-${name}`, uploadURL: `/blobs/${name}?sig=1`, publicURL: `/blobs/${name}`, method: 'PUT', maxBytes: 157286400 };
    },
    'POST /api/jobs': opts.job ?? (() => jsonResponse({ success: true, data: { id: 'job-video', status: 'queued', views: 24 } }, 201)),
  });
  const routed = stub.fn.getMockImplementation()!;
  stub.fn.mockImplementation(async (input, init) => {
    if (init?.method !== 'PUT') return routed(input, init);
    const url = new URL(String(input), 'http://localhost');
    const name = url.pathname.split('/').pop()!;
    const n = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, n);
    stub.calls.push({ method: 'PUT', url: url.pathname, body: null, headers: new Headers(init?.headers) });
    await opts.holdPut?.(name);
    const refused = opts.failPut?.(name, n);
    if (refused) return refused;
    return new Response(JSON.stringify({ success: true, data: {} }), { status: 200, headers: { Location: `/blobs/${name}` } });
  });
  return stub;
}

function dropZone() {
  return screen.getByText(/Drop your turntable videos here|Drop another video|Three videos/).closest('label')!;
}
function drop(files: File[]) {
  fireEvent.drop(dropZone(), { dataTransfer: { files } });
}
/** The browser read a video's header: its length in seconds. */
function metadata(row: HTMLElement, seconds: number) {
  const still = within(row).getByTestId('spin-video-still') as HTMLVideoElement;
  Object.defineProperty(still, 'duration', { configurable: true, value: seconds });
  fireEvent.loadedMetadata(still);
}
async function videoMode() {
  await userEvent.click(screen.getByRole('radio', { name: /^Videos/ }));
}
const rows = () => screen.getAllByTestId('spin-video');

describe('create from turntable videos', () => {
  it('the page offers photos or videos; the guide and the form follow the choice, and each keeps its files', async () => {
    server();
    renderRoutes(routes, ['/workspace/upload/spin']);
    expect(screen.getByRole('heading', { level: 1, name: 'Create from a spin set or video' })).toBeInTheDocument();
    const group = screen.getByRole('group', { name: 'What did you shoot?' });
    expect(within(group).getByRole('radio', { name: /^Photos/ })).toBeChecked();
    expect(within(group).getByRole('radio', { name: /^Videos/ })).not.toBeChecked();
    expect(screen.getByRole('heading', { name: 'How to shoot a spin set' })).toBeInTheDocument();
    const photoTips = screen.getByTestId('spin-guide-photos');
    expect(photoTips).toHaveTextContent('Two camera heights');
    expect(photoTips).toHaveTextContent('The table may turn either way round, as long as it turns the same way at every height.');
    fireEvent.drop(screen.getByText(/Drop your spin set here/).closest('label')!, { dataTransfer: { files: [png('P1.png'), png('P2.png')] } });
    expect(screen.getAllByTestId('spin-thumb')).toHaveLength(2);

    await videoMode();
    expect(screen.getByRole('radio', { name: /^Videos/ })).toBeChecked();
    expect(screen.getByRole('heading', { name: 'How to film a spin video' })).toBeInTheDocument();
    const tips = screen.getByTestId('spin-guide-video');
    expect(tips).toHaveTextContent('phone on a stand or tripod');
    expect(tips).toHaveTextContent('One video per camera height');
    expect(tips).toHaveTextContent('Film one full turn and a little past the start, 10 to 20 seconds');
    expect(tips).toHaveTextContent('Lowest first');
    expect(tips).toHaveTextContent('The table may turn either way round, as long as it turns the same way in every video.');
    expect(screen.getByRole('heading', { name: 'Your videos' })).toBeInTheDocument();
    expect(screen.queryByTestId('spin-thumb')).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Number of rings')).not.toBeInTheDocument();
    expect(screen.getByTestId('spin-video-input')).toHaveAttribute('accept', 'video/mp4,video/quicktime,video/webm,.mp4,.mov,.webm');
    expect(screen.getByRole('button', { name: 'Build from your videos' })).toBeDisabled();
    drop([mp4('turn.mp4')]);
    expect(rows()).toHaveLength(1);

    await userEvent.click(screen.getByRole('radio', { name: /^Photos/ }));
    expect(screen.getAllByTestId('spin-thumb')).toHaveLength(2);
    await videoMode();
    expect(rows()).toHaveLength(1);
  });

  it('two videos: ordered by name, each labelled with its camera height, reorderable; priced; uploaded one by one; one build from both', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const { calls } = server({ holdPut: (name) => (name === 'turn-high.mov' ? held : null) });
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('turn-low.mp4'), mp4('turn-high.mov', 'video/quicktime')]);
    // Sorted by name: "turn-high" first, then moved below the low one by the merchant.
    expect(rows().map((r) => within(r).getByTestId('spin-video-height').textContent)).toEqual([
      'Video 1 — level with the middle of the product',
      'Video 2 — a little above (about 30°)',
    ]);
    expect(rows()[0]).toHaveTextContent('turn-high.mov');
    expect(screen.getByRole('button', { name: 'Move turn-high.mov up' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Move turn-low.mp4 down' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Move turn-high.mov down' }));
    expect(rows()[0]).toHaveTextContent('Video 1 — level with the middle of the product');
    expect(rows()[0]).toHaveTextContent('turn-low.mp4');
    expect(rows()[1]).toHaveTextContent('turn-high.mov');

    // Each still is the video itself, read for its header only; the length shows once read.
    const still = within(rows()[0]).getByTestId('spin-video-still');
    expect(still.tagName).toBe('VIDEO');
    expect(still).toHaveAttribute('preload', 'metadata');
    expect((still as HTMLVideoElement).muted).toBe(true);
    expect(rows()[0]).toHaveTextContent('Reading its length…');
    metadata(rows()[0], 12.34);
    metadata(rows()[1], 15);
    expect(rows()[0]).toHaveTextContent('12.3 s');
    expect(rows()[1]).toHaveTextContent('15 s');

    expect(screen.getByTestId('build-price')).toHaveTextContent(/^12 AI credits per video: 24 AI credits$/);
    expect(await screen.findByTestId('credits-left')).toHaveTextContent(/^You have 50 AI credits left\.$/);
    expect(screen.queryByTestId('spin-problems')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Build from 2 videos' }));
    expect(await screen.findByText('Uploading video 2 of 2')).toBeInTheDocument();
    expect(rows()[0]).toHaveAttribute('data-uploaded', 'true');
    expect(rows()[1]).toHaveAttribute('data-uploaded', 'false');
    expect(screen.getByRole('radio', { name: /^Photos/ })).toBeDisabled();
    release();
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-video'));

    // Each ticket asks for a video's slot, and each PUT sends the video's type.
    const tickets = calls.filter((c) => c.method === 'POST' && c.url === '/api/uploads').map((c) => c.body);
    expect(tickets).toEqual([
      { filename: 'turn-low.mp4', contentType: 'video/mp4', size: 4096 },
      { filename: 'turn-high.mov', contentType: 'video/quicktime', size: 4096 },
    ]);
    const puts = calls.filter((c) => c.method === 'PUT');
    expect(puts.map((c) => [c.url, c.headers.get('Content-Type')])).toEqual([
      ['/blobs/turn-low.mp4', 'video/mp4'],
      ['/blobs/turn-high.mov', 'video/quicktime'],
    ]);
    const job = calls.find((c) => c.method === 'POST' && c.url === '/api/jobs')!;
    expect(job.body).toEqual({ spinSet: { videoURLs: ['/blobs/turn-low.mp4', '/blobs/turn-high.mov'] } });
  });

  it('a MOV the browser names no type for is sent as video/quicktime', async () => {
    const { calls } = server();
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('IMG_0001.MOV', '')]);
    await userEvent.click(screen.getByRole('button', { name: 'Build from 1 video' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-video'));
    expect(calls.find((c) => c.url === '/api/uploads')!.body).toMatchObject({ contentType: 'video/quicktime' });
  });

  it('refuses, before anything is sent, another type, a video over 150 MB and a fourth video, each named with its reason', async () => {
    const { calls } = server();
    renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    const big = mp4('huge.mp4');
    Object.defineProperty(big, 'size', { value: 157_286_401 });
    drop([new File(['just text'], 'notes.mp4', { type: 'text/plain' }), big, mp4('a.mp4')]);
    const problems = screen.getByTestId('spin-drop-problems');
    expect(problems).toHaveTextContent('These 2 files were not added:');
    expect(problems).toHaveTextContent('notes.mp4: Invalid file type. Please select an MP4, MOV or WebM video.');
    expect(problems).toHaveTextContent('huge.mp4: Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.');
    expect(rows()).toHaveLength(1);

    drop([mp4('d.mp4'), mp4('b.mp4'), mp4('c.mp4')]);
    expect(screen.getByTestId('spin-drop-problems')).toHaveTextContent('This file was not added:d.mp4: A build takes at most 3 videos, one per camera height.');
    expect(rows().map((r) => within(r).getByText(/\.mp4$/).textContent)).toEqual(['a.mp4', 'b.mp4', 'c.mp4']);
    expect(rows()[2]).toHaveTextContent('Video 3 — well above (about 55°)');
    expect(screen.getByText('Three videos: remove one to add another')).toBeInTheDocument();
    expect(calls.filter((c) => c.method !== 'GET')).toHaveLength(0);
  });

  it('refuses a video under 2 s or over 60 s once the browser read its length, and leaves an unreadable one to the server', async () => {
    const { calls } = server();
    renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('a-short.mp4'), mp4('b-long.mp4'), mp4('c-hevc.mov', 'video/quicktime')]);
    metadata(rows()[0], 1.2);
    metadata(rows()[1], 95);
    fireEvent.error(within(rows()[2]).getByTestId('spin-video-still'));
    const problems = screen.getByTestId('spin-problems');
    expect(problems).toHaveTextContent('a-short.mp4 is only 1.2 s long: film one full turn of the table, 10 to 20 seconds.');
    expect(problems).toHaveTextContent('b-long.mp4 is 1 min 35 s long: a video may last at most 60 seconds. Film one turn of 10 to 20 seconds.');
    expect(problems).not.toHaveTextContent('c-hevc.mov');
    expect(rows()[2]).toHaveTextContent('Length not readable here; the server checks it');
    expect(screen.getByRole('button', { name: 'Build from 3 videos' })).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'Remove a-short.mp4' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove b-long.mp4' }));
    expect(screen.queryByTestId('spin-problems')).not.toBeInTheDocument();
    expect(rows()[0]).toHaveTextContent('Video 1 — level with the middle of the product');
    expect(screen.getByRole('button', { name: 'Build from 1 video' })).toBeEnabled();
    expect(calls.filter((c) => c.method !== 'GET')).toHaveLength(0);
  });

  it("an upload refusal shows the server's words and keeps the videos; the retry sends only the one not stored", async () => {
    const tooLarge = () =>
      jsonResponse(
        { success: false, error: { code: 'video_too_large', message: 'Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.' } },
        413,
      );
    const { calls } = server({ failPut: (name, n) => (name === 'b.mp4' && n === 1 ? tooLarge() : null) });
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('a.mp4'), mp4('b.mp4')]);
    await userEvent.click(screen.getByRole('button', { name: 'Build from 2 videos' }));
    const top = await screen.findByTestId('spin-failure');
    await waitFor(() => expect(top).toHaveTextContent('b.mp4 was not uploaded: Videos must be under 150 MB: film one turn of 10 to 20 seconds at 1080p.'));
    expect(top).toHaveTextContent('Your videos are kept: press “Build from 2 videos” to try again (the 1 already uploaded are not sent again).');
    expect(rows()).toHaveLength(2);
    expect(calls.some((c) => c.url === '/api/jobs')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: 'Build from 2 videos' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-video'));
    expect(calls.filter((c) => c.method === 'PUT').map((c) => c.url)).toEqual(['/blobs/a.mp4', '/blobs/b.mp4', '/blobs/b.mp4']);
  });

  it('short of credits: the price says so before the start, and the 402 is shown on top with the way to more credits', async () => {
    server({
      credits: 5,
      job: () => jsonResponse({ success: false, error: { code: 'insufficient_credits', message: 'This build uses 12 AI credits; you have 5.' } }, 402),
    });
    renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('a.mp4')]);
    expect(screen.getByTestId('build-price')).toHaveTextContent(/^12 AI credits per video: 12 AI credits$/);
    const left = await screen.findByTestId('credits-left');
    expect(left).toHaveTextContent('You have 5 AI credits left. Not enough for this build: see plans and credits.');
    await userEvent.click(screen.getByRole('button', { name: 'Build from 1 video' }));
    const top = await screen.findByTestId('spin-failure');
    await waitFor(() => expect(top).toHaveTextContent('This build uses 12 AI credits; you have 5.'));
    expect(within(top).getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/workspace/subscription');
    expect(document.activeElement).toBe(top);
    expect(rows()).toHaveLength(1);
  });

  it('"?mode=videos" opens the page on the video mode', async () => {
    server();
    expect(spinPathFor('videos')).toBe('/workspace/upload/spin?mode=videos');
    expect(spinPathFor('photos')).toBe('/workspace/upload/spin');
    renderRoutes(routes, [spinPathFor('videos')]);
    expect(screen.getByRole('radio', { name: /^Videos/ })).toBeChecked();
    expect(screen.getByText('Drop your turntable videos here, or click to choose them')).toBeInTheDocument();
  });

  it('the check under a model cut from videos speaks of frames and filming', () => {
    const { container } = render(<SpinCheck score={null} views={24} videos={2} />);
    expect(container).toHaveTextContent('carved from the outlines of 24 frames of your videos and has no fidelity score');
    expect(container).toHaveTextContent('film the turntable again');
  });

  it("a layout the server refuses shows its message", async () => {
    server({ job: () => jsonResponse({ success: false, error: { code: 'invalid_spin_set', message: 'A video build takes 1 to 3 videos.' } }, 400) });
    renderRoutes(routes, ['/workspace/upload/spin']);
    await videoMode();
    drop([mp4('a.mp4')]);
    await userEvent.click(screen.getByRole('button', { name: 'Build from 1 video' }));
    await waitFor(() => expect(screen.getByTestId('spin-failure')).toHaveTextContent('A video build takes 1 to 3 videos.'));
    expect(within(screen.getByTestId('spin-failure')).queryByRole('link')).not.toBeInTheDocument();
  });
});
