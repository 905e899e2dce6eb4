import { useEffect, useId, useRef, useState } from 'react';
import { ACCEPT_ATTRIBUTE, validateImageFile } from './creation-rules';
import './more-angles.css';

/** How many photos a build takes besides the first (the API's moreImages limit). */
export const MAX_MORE_ANGLES = 7;

/** The suggested order of further photos, with the azimuth each stands for. */
export const ANGLE_GUIDE = [
  { label: 'Left', azimuth: 90 },
  { label: 'Back', azimuth: 180 },
  { label: 'Right', azimuth: 270 },
] as const;

/** Azimuths sent with the further photos: the guide's for the first three when the
 * merchant took exactly the guided set (front + left, back, right), else none (the
 * server spaces photos evenly in the order given). */
export function azimuthsFor(count: number): (number | undefined)[] {
  if (count === ANGLE_GUIDE.length) return ANGLE_GUIDE.map((g) => g.azimuth);
  return Array.from({ length: count }, () => undefined);
}

/** AI credits a build from `photos` photos uses: one per photo, as the server prices it
 * (internal/job CreditsFor; security review M6: more photos are more work). */
export function creditsFor(photos: number): number {
  return Math.max(1, Math.floor(photos) || 0);
}

/** The price shown before a build starts: "Uses 1 AI credit" / "Uses 4 AI credits, one per photo". */
export function priceLabel(photos: number): string {
  const n = creditsFor(photos);
  return n === 1 ? 'Uses 1 AI credit' : `Uses ${n} AI credits, one per photo`;
}

/** "Built from 4 photos" / "Built from 1 photo". */
export function viewsLabel(views: number): string {
  return `Built from ${views} ${views === 1 ? 'photo' : 'photos'}`;
}

/**
 * What a build was made from, wherever it is shown: "Built from 24 photos in 2 rings" for a spin
 * set, "Built from 2 videos (24 frames)" for one cut from turntable videos (the merchant sent
 * videos, not photos), else viewsLabel. A build that failed built nothing, so it says only what
 * was sent: "24 photos in 2 rings", "2 videos (24 frames)", "1 photo".
 */
export function buildFromLabel(views: number, spin?: { rings: number; videos?: number } | null, opts: { failed?: boolean } = {}): string {
  const photos = `${views} ${views === 1 ? 'photo' : 'photos'}`;
  let sent = photos;
  if (spin?.videos) sent = `${spin.videos} ${spin.videos === 1 ? 'video' : 'videos'} (${views} ${views === 1 ? 'frame' : 'frames'})`;
  else if (spin) sent = `${photos} in ${spin.rings} ${spin.rings === 1 ? 'ring' : 'rings'}`;
  return opts.failed ? sent : `Built from ${sent}`;
}

interface Props {
  files: File[];
  onChange: (files: File[]) => void;
  disabled?: boolean;
}

/**
 * "Add more angles (optional)": after the front photo, up to seven further photos of
 * the same product from other sides make a far more accurate shape. A small guide
 * shows the order (front, left, back, right); photos can be reordered and removed.
 */
export function MoreAngles({ files, onChange, disabled }: Props) {
  const inputId = useId();
  const inputRef = useRef<HTMLInputElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [urls, setURLs] = useState<string[]>([]);

  useEffect(() => {
    const next = files.map((f) => URL.createObjectURL(f));
    setURLs(next);
    return () => next.forEach((u) => URL.revokeObjectURL(u));
  }, [files]);

  const add = (list: FileList | null) => {
    if (!list?.length) return;
    const picked = Array.from(list);
    const bad = picked.map(validateImageFile).find((p) => p);
    if (bad) {
      setProblem(bad);
      return;
    }
    if (files.length + picked.length > MAX_MORE_ANGLES) {
      setProblem(`You can add up to ${MAX_MORE_ANGLES} more photos.`);
      return;
    }
    setProblem(null);
    onChange([...files, ...picked]);
    if (inputRef.current) inputRef.current.value = '';
  };
  const move = (i: number, d: -1 | 1) => {
    const next = files.slice();
    [next[i], next[i + d]] = [next[i + d], next[i]];
    onChange(next);
  };
  const remove = (i: number) => onChange(files.filter((_, k) => k !== i));
  const guide = ['Front', ...ANGLE_GUIDE.map((g) => g.label)];

  return (
    <section className="card more-angles" aria-label="Add more angles">
      <h2 className="more-angles__title">Add more angles (optional)</h2>
      <p className="muted">
        Photos from the other sides give a far more accurate shape. Turn the product and shoot it in this order, from the same
        height and distance. Each photo uses one AI credit.
      </p>
      <ol className="more-angles__guide" aria-label="Suggested angles">
        {guide.map((g, i) => (
          <li key={g} className={i <= files.length ? 'more-angles__step more-angles__step--done' : 'more-angles__step'}>
            {g}
          </li>
        ))}
      </ol>
      {files.length > 0 && (
        <ol className="more-angles__list" aria-label="More angles">
          {files.map((f, i) => (
            <li key={`${f.name}-${i}`} className="more-angles__item" data-testid="more-angle">
              {urls[i] && <img src={urls[i]} alt={`Angle ${i + 2}: ${f.name}`} />}
              <span className="more-angles__name">
                {i < ANGLE_GUIDE.length ? ANGLE_GUIDE[i].label : `Angle ${i + 2}`}: {f.name}
              </span>
              <button type="button" className="btn btn--ghost" onClick={() => move(i, -1)} disabled={disabled || i === 0} aria-label={`Move ${f.name} up`}>
                ↑
              </button>
              <button
                type="button"
                className="btn btn--ghost"
                onClick={() => move(i, 1)}
                disabled={disabled || i === files.length - 1}
                aria-label={`Move ${f.name} down`}
              >
                ↓
              </button>
              <button type="button" className="btn btn--ghost" onClick={() => remove(i)} disabled={disabled} aria-label={`Remove ${f.name}`}>
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <input
        ref={inputRef}
        id={inputId}
        className="visually-hidden"
        type="file"
        multiple
        accept={ACCEPT_ATTRIBUTE}
        onChange={(e) => add(e.target.files)}
        disabled={disabled || files.length >= MAX_MORE_ANGLES}
        data-testid="more-angles-input"
      />
      <label htmlFor={inputId} className="btn btn--secondary" aria-disabled={disabled || files.length >= MAX_MORE_ANGLES}>
        Add photos
      </label>
      <p className="more-angles__price" data-testid="build-price">
        {priceLabel(files.length + 1)}
      </p>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
    </section>
  );
}
