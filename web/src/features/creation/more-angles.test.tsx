import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { jsonResponse, renderRoutes, signIn, stubFetch } from '../../test/render';
import UploadPage from './upload-page';

const routes = [
  { path: '/workspace/upload', element: <UploadPage /> },
  { path: '/processing/:jobId', element: <p>processing page</p> },
];
const png = (name: string) => new File([new Uint8Array(4096)], name, { type: 'image/png' });

beforeEach(() => {
  signIn();
  Object.defineProperty(URL, 'createObjectURL', { configurable: true, value: vi.fn(() => 'blob:preview') });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn() });
});
afterEach(() => vi.unstubAllGlobals());

// Issue 34 §3: after the first photo, "Add more angles (optional)" with a guide
// (front, left, back, right), reorder and remove; one job from all the photos.
describe('upload: more angles', () => {
  it('adds, reorders and removes further photos, then sends them as moreImages of one job', async () => {
    let n = 0;
    const { calls } = stubFetch({
      'POST /api/uploads': () => {
        n++;
        return { uploadId: `up${n}`, uploadURL: `/blobs/uploads/up${n}?sig=x`, publicURL: `/blobs/uploads/up${n}` };
      },
      'PUT /blobs/uploads/up1': () => ({}),
      'PUT /blobs/uploads/up2': () => ({}),
      'PUT /blobs/uploads/up3': () => ({}),
      'PUT /blobs/uploads/up4': () => ({}),
      'POST /api/jobs': () => ({ id: 'job-9', status: 'queued', views: 4 }),
    });
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, ['/workspace/upload']);
    expect(screen.queryByText('Add more angles (optional)')).not.toBeInTheDocument();
    await user.upload(screen.getByTestId('upload-input'), png('front.png'));
    expect(screen.getByText('Add more angles (optional)')).toBeInTheDocument();
    const guide = screen.getByRole('list', { name: 'Suggested angles' });
    expect(within(guide).getAllByRole('listitem').map((li) => li.textContent)).toEqual(['Front', 'Left', 'Back', 'Right']);
    // The price is shown before the build starts: one AI credit per photo (security review M6).
    expect(screen.getByTestId('build-price')).toHaveTextContent('Uses 1 AI credit');

    await user.upload(screen.getByTestId('more-angles-input'), [png('right.png'), png('left.png'), png('back.png'), png('blurry.png')]);
    await user.click(screen.getByRole('button', { name: 'Remove blurry.png' }));
    await user.click(screen.getByRole('button', { name: 'Move left.png up' }));
    await user.click(screen.getByRole('button', { name: 'Move right.png down' }));
    await user.click(screen.getByRole('button', { name: 'Move right.png down' }));
    expect(screen.getAllByTestId('more-angle').map((li) => li.textContent)).toEqual([
      expect.stringContaining('Left: left.png'),
      expect.stringContaining('Back: back.png'),
      expect.stringContaining('Right: right.png'),
    ]);

    expect(screen.getByTestId('build-price')).toHaveTextContent('Uses 4 AI credits, one per photo');

    await user.click(screen.getByRole('button', { name: 'Use These 4 Photos' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/processing/job-9'));
    const jobs = calls.filter((c) => c.method === 'POST' && c.url === '/api/jobs');
    expect(jobs).toHaveLength(1);
    expect(jobs[0].body).toEqual({
      imageURL: '/blobs/uploads/up1',
      moreImages: [
        { imageURL: '/blobs/uploads/up2', azimuth: 90 },
        { imageURL: '/blobs/uploads/up3', azimuth: 180 },
        { imageURL: '/blobs/uploads/up4', azimuth: 270 },
      ],
    });
  });

  it("shows the server's credits-short message, which says what the build needs, with the plans link", async () => {
    const msg = 'Not enough AI credits: a build from 3 photos uses 3 credits, one per photo. Buy more credits or upgrade your plan on the Subscription page, or build from fewer photos.';
    let n = 0;
    stubFetch({
      'POST /api/uploads': () => {
        n++;
        return { uploadId: `up${n}`, uploadURL: `/blobs/uploads/up${n}?sig=x`, publicURL: `/blobs/uploads/up${n}` };
      },
      'PUT /blobs/uploads/up1': () => ({}),
      'PUT /blobs/uploads/up2': () => ({}),
      'PUT /blobs/uploads/up3': () => ({}),
      'POST /api/jobs': () => jsonResponse({ success: false, error: { code: 'insufficient_credits', message: msg } }, 402),
    });
    const user = userEvent.setup();
    renderRoutes(routes, ['/workspace/upload']);
    await user.upload(screen.getByTestId('upload-input'), png('front.png'));
    await user.upload(screen.getByTestId('more-angles-input'), [png('left.png'), png('back.png')]);
    expect(screen.getByTestId('build-price')).toHaveTextContent('Uses 3 AI credits, one per photo');
    await user.click(screen.getByRole('button', { name: 'Use These 3 Photos' }));
    expect(await screen.findByText(/a build from 3 photos uses 3 credits/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/workspace/subscription');
  });

  it('refuses an eighth further photo with a clear message', async () => {
    stubFetch({});
    const user = userEvent.setup();
    renderRoutes(routes, ['/workspace/upload']);
    await user.upload(screen.getByTestId('upload-input'), png('front.png'));
    await user.upload(screen.getByTestId('more-angles-input'), Array.from({ length: 8 }, (_, i) => png(`a${i}.png`)));
    expect(screen.getByRole('alert')).toHaveTextContent('You can add up to 7 more photos.');
    expect(screen.queryAllByTestId('more-angle')).toHaveLength(0);
  });
});
