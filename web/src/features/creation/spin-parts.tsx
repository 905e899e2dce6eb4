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
