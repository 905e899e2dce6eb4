import { act, renderHook, waitFor } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { THUMB_WIDTH, usePhotoThumbnails } from './spin-parts';

/*
 * The spin page's thumbnails are small copies of the photos, made one photo at a time: a
 * photo shown as itself keeps all its decoded pixels in the tab (Chromium: 72 photos of 12 MP
 * took 0.75 GB). What the browser draws is checked in Chromium (e2e/spin-set.spec.ts); here,
 * the order, the fallback and the clean-up.
 */

const photo = (name: string) => new File([name], name, { type: 'image/jpeg' });

let created: (Blob | File)[];
let revoked: string[];
let decoding: number;
let mostAtOnce: number;
let calls: { name: string; opts: ImageBitmapOptions | undefined }[];
let refuse: Set<string>;

beforeEach(() => {
  created = [];
  revoked = [];
  decoding = 0;
  mostAtOnce = 0;
  calls = [];
  refuse = new Set();
  Object.defineProperty(URL, 'createObjectURL', {
    configurable: true,
    value: vi.fn((b: Blob | File) => {
      created.push(b);
      return `blob:${created.length}`;
    }),
  });
  Object.defineProperty(URL, 'revokeObjectURL', { configurable: true, value: vi.fn((u: string) => revoked.push(u)) });
  vi.stubGlobal(
    'createImageBitmap',
    vi.fn(async (file: File, opts?: ImageBitmapOptions) => {
      calls.push({ name: file.name, opts });
      decoding++;
      mostAtOnce = Math.max(mostAtOnce, decoding);
      await new Promise((r) => setTimeout(r, 1));
      decoding--;
      if (refuse.has(file.name)) throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
      return { width: THUMB_WIDTH, height: 192, close: vi.fn() };
    }),
  );
  vi.spyOn(HTMLCanvasElement.prototype, 'getContext').mockReturnValue({ drawImage: vi.fn() } as unknown as CanvasRenderingContext2D);
  vi.spyOn(HTMLCanvasElement.prototype, 'toBlob').mockImplementation(function (this: HTMLCanvasElement, cb: BlobCallback) {
    cb(new Blob([`${this.width}x${this.height}`], { type: 'image/jpeg' }));
  });
});

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe('spin page thumbnails', () => {
  it('are 256 px wide copies, made one photo at a time, in the order the photos came', async () => {
    const files = [photo('P1.jpg'), photo('P2.jpg'), photo('P3.jpg')];
    const { result } = renderHook(() => usePhotoThumbnails(files));
    await waitFor(() => expect(result.current.size).toBe(3));
    expect(calls.map((c) => c.name)).toEqual(['P1.jpg', 'P2.jpg', 'P3.jpg']);
    expect(calls.every((c) => c.opts?.resizeWidth === THUMB_WIDTH)).toBe(true);
    expect(mostAtOnce).toBe(1);
    // Each URL is the small JPEG's, never the photo's.
    expect(created.some((b) => b instanceof File)).toBe(false);
    expect(await Promise.all(created.map((b) => b.text()))).toEqual(['256x192', '256x192', '256x192']);
  });

  it('are drawn 256 px wide where the browser ignored the resize and decoded the whole photo', async () => {
    vi.stubGlobal(
      'createImageBitmap',
      vi.fn(async () => ({ width: 4000, height: 3000, close: vi.fn() })),
    );
    const { result } = renderHook(() => usePhotoThumbnails([photo('P1.jpg')]));
    await waitFor(() => expect(result.current.size).toBe(1));
    expect(await created[0].text()).toBe('256x192');
  });

  it('show the photo itself where the browser cannot make a copy', async () => {
    refuse.add('P2.heic');
    const files = [photo('P1.jpg'), photo('P2.heic')];
    const { result } = renderHook(() => usePhotoThumbnails(files));
    await waitFor(() => expect(result.current.size).toBe(2));
    expect(created[1]).toBe(files[1]);
  });

  it("revoke a removed photo's thumbnail, and every thumbnail when the page goes", async () => {
    const files = [photo('P1.jpg'), photo('P2.jpg')];
    const { result, rerender, unmount } = renderHook(({ fs }) => usePhotoThumbnails(fs), { initialProps: { fs: files } });
    await waitFor(() => expect(result.current.size).toBe(2));
    const second = result.current.get(files[1]);
    rerender({ fs: [files[0]] });
    expect(revoked).toEqual([second]);
    expect(result.current.has(files[1])).toBe(false);
    unmount();
    expect(revoked).toHaveLength(2);
  });

  it('do not decode a photo removed before its turn', async () => {
    const files = [photo('P1.jpg'), photo('P2.jpg'), photo('P3.jpg')];
    const { result, rerender } = renderHook(({ fs }) => usePhotoThumbnails(fs), { initialProps: { fs: files } });
    act(() => rerender({ fs: [files[0]] }));
    await waitFor(() => expect(result.current.size).toBe(1));
    // The queue skips the removed two as soon as P1's thumbnail is made.
    expect(calls.map((c) => c.name)).toEqual(['P1.jpg']);
    expect(result.current.size).toBe(1);
  });
});
