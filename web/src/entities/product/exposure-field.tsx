import type { ReactNode } from 'react';
import { EXPOSURE_MAX, EXPOSURE_MIN, EXPOSURE_STEP, exposureValue, formatExposure, POSTERS, type Poster } from './configurator-rules';

/**
 * The Exposure slider of a viewer preset (issue 52): 0.25–2 in steps of 0.05, its value shown
 * beside it. The product's viewer settings and an experiment's variation use the same one.
 */
export function ExposureField({
  id,
  value,
  onChange,
  rangeClass,
  valueTestId,
  help,
}: {
  id: string;
  value: number;
  onChange: (exposure: number) => void;
  /** The row's class (each form lays the slider out its own way). */
  rangeClass: string;
  valueTestId: string;
  help?: ReactNode;
}) {
  const helpId = help ? `${id}-help` : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>Exposure</label>
      <div className={rangeClass}>
        <input
          id={id}
          type="range"
          min={EXPOSURE_MIN}
          max={EXPOSURE_MAX}
          step={EXPOSURE_STEP}
          value={value}
          aria-valuetext={formatExposure(value)}
          aria-describedby={helpId}
          onChange={(e) => onChange(exposureValue(e.target.value))}
        />
        <output htmlFor={id} data-testid={valueTestId}>
          {formatExposure(value)}
        </output>
      </div>
      {help && (
        <p id={helpId} className="field__help">
          {help}
        </p>
      )}
    </div>
  );
}

/** What the page shows while the model loads (issue 52): the viewer settings and an experiment's variation. */
export function PosterField({ id, value, onChange }: { id: string; value: Poster; onChange: (poster: Poster) => void }) {
  return (
    <div className="field">
      <label htmlFor={id}>While the model loads</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value as Poster)}>
        {POSTERS.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
}
