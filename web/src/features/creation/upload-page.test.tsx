import { fireEvent, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import { MSG_ONE_IMAGE } from '../../entities/creation/creation-rules';
import UploadPage from './upload-page';

const routes = [
  { path: '/workspace/upload', element: <UploadPage /> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];
const png = (name = 'vase.png') => new File([new Uint8Array(4096)], name, { type: 'image/png' });
/** What the page sent, without its read of the person's role (GET /api/workspaces, issue 51). */
const sent = <T extends { url: string }>(calls: T[]) => calls.filter((c) => !c.url.startsWith('/api/workspaces'));
const ticket = () => ({ uploadId: 'up1', uploadURL: '/blobs/uploads/up1?sig=abc', publicURL: '/blobs/uploads/up1' });

beforeEach(() => {
  signIn();
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:preview') });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});
afterEach(() => vi.unstubAllGlobals());

function drop(files: File[]) {
  const zone = screen.getByText('Drag a photo here, or click to choose one').closest('label')!;
  fireEvent.drop(zone, { dataTransfer: { files } });
}

async function submit(file = png()) {
  const user = userEvent.setup();
  await user.upload(screen.getByTestId('upload-input'), file);
  await user.click(await screen.findByRole('button', { name: 'Use This Photo' }));
}

// Spec §5: "Upload image: one file; JPEG, JPG, PNG or WebP; at most 10485760 bytes (10MB)."
describe('upload: one photo', () => {
  it('dropping several files says the spec message "Unable to upload this file…" instead of taking the first', async () => {
    const { calls } = stubFetch({});
    renderRoutes(routes, ['/workspace/upload']);
    drop([png('front.png'), png('back.png')]);
    expect(screen.getByRole('alert')).toHaveTextContent(MSG_ONE_IMAGE);
    expect(screen.queryByText('front.png')).not.toBeInTheDocument();
    expect(sent(calls)).toHaveLength(0);

    drop([png('front.png')]);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(screen.getByText('front.png')).toBeInTheDocument();
  });
});

// Spec §7: "The upload flow tries the signed URL first and falls back to the content upload if
// that fails." Issue 19 item 4: only when the server never judged the photo (network, 5xx).
describe('upload: when the signed PUT fails', () => {
  it.each([
    [413, 'File is too large. Please select an image under 10MB.'],
    [415, 'Invalid file type. Please select a JPEG, PNG, or WebP image.'],
    [422, 'Unable to upload this file. Please try another image.'],
  ])('a %i refusal of the photo is shown and the photo is not sent again', async (status, message) => {
    const { calls } = stubFetch({
      'POST /api/uploads': ticket,
      'PUT /blobs/uploads/up1': () => jsonResponse({ success: false, error: { code: 'refused', message } }, status),
    });
    renderRoutes(routes, ['/workspace/upload']);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent(message);
    expect(sent(calls).map((c) => `${c.method} ${c.url.split('?')[0]}`)).toEqual(['POST /api/uploads', 'PUT /blobs/uploads/up1']);
  });

  it('a refusal without a message reads "Upload failed with status {code}" (spec §8)', async () => {
    const { calls } = stubFetch({ 'POST /api/uploads': ticket, 'PUT /blobs/uploads/up1': () => new Response('', { status: 415 }) });
    renderRoutes(routes, ['/workspace/upload']);
    await submit();
    expect(await screen.findByRole('alert')).toHaveTextContent('Upload failed with status 415');
    expect(calls.some((c) => c.url === '/api/uploads/content')).toBe(false);
  });

  it('a network error falls back to the content upload', async () => {
    const { fn, calls } = stubFetch({
      'POST /api/uploads': ticket,
      'POST /api/uploads/content': () => ({ imageURL: '/blobs/uploads/up2.png' }),
      'POST /api/jobs': () => ({ id: 'job-7', status: 'queued' }),
    });
    const routed = fn.getMockImplementation()!;
    fn.mockImplementation(async (input, init) => {
      if (init?.method === 'PUT') throw new TypeError('Failed to fetch');
      return routed(input, init);
    });
    const { router } = renderRoutes(routes, ['/workspace/upload']);
    await submit();
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-7'));
    expect(sent(calls).map((c) => `${c.method} ${c.url}`)).toEqual(['POST /api/uploads', 'POST /api/uploads/content', 'POST /api/jobs']);
  });
});
