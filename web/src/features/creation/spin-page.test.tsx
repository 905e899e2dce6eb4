import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import SpinPage from './spin-page';

const routes = [
  { path: '/workspace/upload/spin', element: <SpinPage /> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];
const png = (name: string) => new File([new Uint8Array(2048)], name, { type: 'image/png' });
/** A spin set as a camera names it, handed over in a shuffled order. */
const spinSet = (n: number) =>
  Array.from({ length: n }, (_, i) => png(`P${i + 1}.png`)).sort((a, b) => (a.name.length % 2) - (b.name.length % 2) || b.name.localeCompare(a.name));

beforeEach(() => {
  signIn();
  let k = 0;
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => `blob:thumb-${++k}`) });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});
afterEach(() => vi.unstubAllGlobals());

/** The server: signed tickets per file, the PUT answering Location, then POST /jobs. */
function server(opts: { failPut?: (name: string, attempt: number) => boolean; job?: () => unknown; credits?: number | null } = {}) {
  const attempts = new Map<string, number>();
  const stub = stubFetch({
    'GET /api/subscription': () => ({ aiCreditBalance: opts.credits ?? 50 }),
    'POST /api/uploads': ({ body }) => {
      const name = (body as { filename: string }).filename;
      return { uploadId: `up-${name}`, uploadURL: `/blobs/${name}?sig=1`, publicURL: `/blobs/${name}` };
    },
    'POST /api/jobs': opts.job ?? (() => jsonResponse({ success: true, data: { id: 'job-spin', status: 'queued', views: 24 } }, 201)),
  });
  const routed = stub.fn.getMockImplementation()!;
  stub.fn.mockImplementation(async (input, init) => {
    if (init?.method !== 'PUT') return routed(input, init);
    const url = new URL(String(input), 'http://localhost');
    const name = url.pathname.split('/').pop()!;
    const n = (attempts.get(name) ?? 0) + 1;
    attempts.set(name, n);
    stub.calls.push({ method: 'PUT', url: url.pathname, body: null, headers: new Headers() });
    if (opts.failPut?.(name, n)) return jsonResponse({ success: false, error: { code: 'refused', message: 'Unable to upload this file. Please try another image.' } }, 422);
    return new Response(JSON.stringify({ success: true, data: {} }), { status: 200, headers: { Location: `/blobs/${name}` } });
  });
  return stub;
}

function drop(files: File[]) {
  const zone = screen.getByText(/Drop your spin set here|Drop more photos/).closest('label')!;
  fireEvent.drop(zone, { dataTransfer: { files } });
}

describe('create from a spin set', () => {
  it('24 dropped photos: sorted by name, split 12 + 12 with their coverage, priced, uploaded in order, then one spin build', async () => {
    const { calls } = server();
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    expect(screen.getByRole('heading', { name: 'How to shoot a spin set' })).toBeInTheDocument();
    drop(spinSet(24));

    const groups = screen.getAllByTestId('spin-group');
    expect(groups).toHaveLength(2);
    expect(within(groups[0]).getAllByTestId('spin-thumb').map((t) => t.textContent)).toEqual(
      Array.from({ length: 12 }, (_, i) => expect.stringContaining(`${i + 1}. P${i + 1}.png`)),
    );
    expect(within(groups[1]).getAllByTestId('spin-thumb')[0]).toHaveTextContent('1. P13.png');
    expect(screen.getAllByTestId('spin-coverage').map((c) => c.textContent)).toEqual(['0°12 photos, largest gap 30°', '30°12 photos, largest gap 30°']);
    expect(screen.getByLabelText('Ring 1 photos')).toHaveValue(12);
    expect(screen.getByTestId('build-price')).toHaveTextContent(/^Uses 24 AI credits, one per photo$/);
    expect(await screen.findByTestId('credits-left')).toHaveTextContent('You have 50 AI credits left.');
    expect(screen.queryByTestId('spin-problems')).not.toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Build from 24 photos' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-spin'));
    const puts = calls.filter((c) => c.method === 'PUT').map((c) => c.url);
    expect(puts).toEqual(Array.from({ length: 24 }, (_, i) => `/blobs/P${i + 1}.png`));
    const job = calls.find((c) => c.method === 'POST' && c.url === '/api/jobs')!;
    expect(job.body).toEqual({
      spinSet: {
        rings: [
          { photos: 12, elevation: 0 },
          { photos: 12, elevation: 30 },
        ],
        imageURLs: Array.from({ length: 24 }, (_, i) => `/blobs/P${i + 1}.png`),
      },
    });
  });

  it('a reorder within a ring and a removal change what is sent; the counts follow the removal', async () => {
    const { calls } = server();
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    drop(spinSet(25));
    expect(screen.getByLabelText('Ring 1 photos')).toHaveValue(13);
    // The last photo of ring 1 cannot move into ring 2; the first of ring 2 cannot move back.
    expect(screen.getByRole('button', { name: 'Move P13.png later' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Move P14.png earlier' })).toBeDisabled();
    await userEvent.click(screen.getByRole('button', { name: 'Move P2.png earlier' }));
    await userEvent.click(screen.getByRole('button', { name: 'Remove P13.png' }));
    expect(screen.getByLabelText('Ring 1 photos')).toHaveValue(12);
    expect(screen.getByTestId('build-price')).toHaveTextContent(/^Uses 24 AI credits, one per photo$/);
    await userEvent.click(screen.getByRole('button', { name: 'Build from 24 photos' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-spin'));
    const urls = (calls.find((c) => c.url === '/api/jobs')!.body as { spinSet: { imageURLs: string[] } }).spinSet.imageURLs;
    expect(urls.slice(0, 3)).toEqual(['/blobs/P2.png', '/blobs/P1.png', '/blobs/P3.png']);
    expect(urls).not.toContain('/blobs/P13.png');
  });

  it('7 photos: the message says why and the button stays off; nothing is sent', async () => {
    const { calls } = server();
    renderRoutes(routes, ['/workspace/upload/spin']);
    await userEvent.selectOptions(screen.getByLabelText('Number of rings'), '1');
    drop(spinSet(7));
    expect(screen.getByTestId('spin-problems')).toHaveTextContent('A spin set needs at least 8 photos; 7 photos are added.');
    expect(screen.getByRole('button', { name: 'Build from 7 photos' })).toBeDisabled();
    expect(calls.filter((c) => c.method !== 'GET')).toHaveLength(0);
  });

  it('a file that is not an image is not added, and named', async () => {
    server();
    renderRoutes(routes, ['/workspace/upload/spin']);
    drop([...spinSet(8), new File(['x'], 'notes.txt', { type: 'text/plain' })]);
    expect(screen.getByTestId('spin-drop-problems')).toHaveTextContent('notes.txt: Invalid file type. Please select a JPEG, PNG, or WebP image.');
    expect(screen.getAllByTestId('spin-thumb')).toHaveLength(8);
  });

  it('an upload failure names the photo, keeps every photo, and the retry sends only what was not stored', async () => {
    const { calls } = server({ failPut: (name, attempt) => name === 'P3.png' && attempt === 1 });
    const { router } = renderRoutes(routes, ['/workspace/upload/spin']);
    drop(spinSet(8));
    await userEvent.selectOptions(screen.getByLabelText('Number of rings'), '1');
    await userEvent.click(screen.getByRole('button', { name: 'Build from 8 photos' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('P3.png was not uploaded: Unable to upload this file. Please try another image.');
    expect(alert).toHaveTextContent('(the 2 already uploaded are not sent again)');
    expect(screen.getAllByTestId('spin-thumb')).toHaveLength(8);
    expect(calls.some((c) => c.url === '/api/jobs')).toBe(false);

    await userEvent.click(screen.getByRole('button', { name: 'Build from 8 photos' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-spin'));
    const puts = calls.filter((c) => c.method === 'PUT').map((c) => c.url.replace('/blobs/', ''));
    expect(puts).toEqual(['P1.png', 'P2.png', 'P3.png', 'P3.png', 'P4.png', 'P5.png', 'P6.png', 'P7.png', 'P8.png']);
  });

  it("the server's refusal is shown at the top of the form with its message; 402 links to the plans", async () => {
    server({
      credits: 5,
      job: () => jsonResponse({ success: false, error: { code: 'insufficient_credits', message: 'This build uses 24 AI credits; you have 5.' } }, 402),
    });
    renderRoutes(routes, ['/workspace/upload/spin']);
    drop(spinSet(24));
    expect(await screen.findByTestId('credits-left')).toHaveTextContent('You have 5 AI credits left. Not enough for this build');
    await userEvent.click(screen.getByRole('button', { name: 'Build from 24 photos' }));
    const top = await screen.findByTestId('spin-failure');
    await waitFor(() => expect(top).toHaveTextContent('This build uses 24 AI credits; you have 5.'));
    expect(within(top).getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/workspace/subscription');
    expect(document.activeElement).toBe(top);
    // It sits above the photos, where the merchant looks after the page scrolls to it.
    expect(top.compareDocumentPosition(screen.getAllByTestId('spin-group')[0]) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
  });
});
