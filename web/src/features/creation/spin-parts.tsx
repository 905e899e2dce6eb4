import { useEffect, useRef, useState } from 'react';

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
