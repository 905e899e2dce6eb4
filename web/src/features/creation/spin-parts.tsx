import { useEffect, useId, useRef, useState, type DragEvent, type ReactNode } from 'react';
import { IconUpload } from '../../components/icons';

/** Files the last drop left out, each with its reason, under the drop zone (photos and videos alike). */
export function DropProblems({ problems }: { problems: readonly string[] }) {
  if (!problems.length) return null;
  return (
    <div className="form-error spin__drop-problems" role="alert" data-testid="spin-drop-problems">
      <p>{problems.length === 1 ? 'This file was not added:' : `These ${problems.length} files were not added:`}</p>
      <ul>
        {problems.map((p, i) => (
          <li key={i}>{p}</li>
        ))}
      </ul>
    </div>
  );
}

/**
 * An object URL per file (a photo's thumbnail, a video's still), made once per file and revoked
 * when the file leaves the page, or the page goes.
 */
export function useObjectURLs(files: readonly File[]): Map<File, string> {
  const cache = useRef(new Map<File, string>());
  const [, bump] = useState(0);
  useEffect(() => {
    const keep = new Set(files);
    let changed = false;
    for (const [f, u] of cache.current) {
      if (!keep.has(f)) {
        URL.revokeObjectURL(u);
        cache.current.delete(f);
      }
    }
    for (const f of files) {
      if (!cache.current.has(f)) {
        cache.current.set(f, URL.createObjectURL(f));
        changed = true;
      }
    }
    if (changed) bump((n) => n + 1);
  }, [files]);
  useEffect(() => {
    const c = cache.current;
    return () => {
      for (const u of c.values()) URL.revokeObjectURL(u);
      c.clear();
    };
  }, []);
  return cache.current;
}

/** The width, in pixels, of a photo's thumbnail on the spin page: about three times what it is shown at. */
export const THUMB_WIDTH = 256;

/**
 * A small JPEG of the photo, THUMB_WIDTH wide, as an object URL. A 12 MP photo shown as itself
 * keeps its decoded pixels in the page: 72 of them took the tab from 0.4 to 1.15 GB in Chromium.
 * Each photo is decoded once here and only the small copy stays. Where the browser cannot make
 * one (no createImageBitmap, a format it will not draw), the photo itself is shown.
 */
export async function photoThumbnailURL(file: File): Promise<string> {
  if (typeof createImageBitmap !== 'function') return URL.createObjectURL(file);
  try {
    const bitmap = await createImageBitmap(file, { resizeWidth: THUMB_WIDTH, resizeQuality: 'medium' });
    // Drawn at the thumbnail's size even where the browser ignored resizeWidth.
    const width = Math.min(THUMB_WIDTH, bitmap.width);
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = Math.max(1, Math.round((bitmap.height * width) / bitmap.width));
    const ctx = canvas.getContext('2d');
    if (!ctx) {
      bitmap.close();
      return URL.createObjectURL(file);
    }
    ctx.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
    bitmap.close();
    const blob = await new Promise<Blob | null>((resolve) => canvas.toBlob(resolve, 'image/jpeg', 0.85));
    return URL.createObjectURL(blob ?? file);
  } catch {
    return URL.createObjectURL(file);
  }
}

/**
 * A thumbnail URL per photo (photoThumbnailURL), made one photo at a time so that only one
 * full-size photo is decoded at once, and revoked when the photo leaves the page, or the page
 * goes. A photo without its thumbnail yet is missing from the map.
 */
export function usePhotoThumbnails(files: readonly File[]): Map<File, string> {
  const cache = useRef(new Map<File, string>());
  const pending = useRef(new Set<File>());
  const current = useRef<ReadonlySet<File>>(new Set());
  const queue = useRef<Promise<void>>(Promise.resolve());
  const alive = useRef(true);
  const [, bump] = useState(0);
  useEffect(() => {
    const keep = new Set(files);
    current.current = keep;
    let changed = false;
    for (const [f, u] of cache.current) {
      if (!keep.has(f)) {
        URL.revokeObjectURL(u);
        cache.current.delete(f);
        changed = true;
      }
    }
    for (const f of files) {
      if (cache.current.has(f) || pending.current.has(f)) continue;
      pending.current.add(f);
      queue.current = queue.current.then(async () => {
        // Removed before its turn: nothing to decode.
        if (!alive.current || !current.current.has(f)) {
          pending.current.delete(f);
          return;
        }
        const url = await photoThumbnailURL(f);
        pending.current.delete(f);
        if (!alive.current || !current.current.has(f)) {
          URL.revokeObjectURL(url);
          return;
        }
        cache.current.set(f, url);
        bump((n) => n + 1);
      });
    }
    if (changed) bump((n) => n + 1);
  }, [files]);
  useEffect(() => {
    alive.current = true;
    const c = cache.current;
    return () => {
      alive.current = false;
      for (const u of c.values()) URL.revokeObjectURL(u);
      c.clear();
    };
  }, []);
  return cache.current;
}

/**
 * The drop zone of the spin page, for photos and videos alike: a hidden multi-file input behind a
 * label that takes a drop. Every pick or drop reaches onFiles once, and the input is emptied so
 * the same file can be chosen again after it was removed.
 */
export function SpinDropZone({ accept, testId, busy, onFiles, title, hint }: { accept: string; testId: string; busy: boolean; onFiles: (files: File[]) => void; title: ReactNode; hint: ReactNode }) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const take = (list: FileList | null | undefined) => {
    const picked = Array.from(list ?? []);
    if (inputRef.current) inputRef.current.value = '';
    if (picked.length) onFiles(picked);
  };
  const onDrop = (e: DragEvent<HTMLElement>) => {
    e.preventDefault();
    setDragging(false);
    if (!busy) take(e.dataTransfer?.files);
  };
  return (
    <>
      <input ref={inputRef} id={inputId} className="visually-hidden" type="file" multiple accept={accept} onChange={(e) => take(e.target.files)} disabled={busy} data-testid={testId} />
      <label
        htmlFor={inputId}
        className={dragging ? 'upload__drop upload__drop--over spin__drop' : 'upload__drop spin__drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        aria-disabled={busy}
      >
        <IconUpload size={32} />
        <span className="upload__drop-title">{title}</span>
        <span className="muted">{hint}</span>
      </label>
    </>
  );
}
