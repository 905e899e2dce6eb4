import { useId, useState } from 'react';
import { IconInfo } from '../../components/icons';
import type { MetricDefinition } from './analytics-api';

/**
 * The info mark next to a number: a button that shows the metric's definition and unit (served by
 * the API from the one definitions table, internal/analytics/definitions.go) in a tooltip on
 * hover, on keyboard focus and on tap; Escape closes it. The tooltip is the button's accessible
 * description, so screen readers announce it with the button.
 */
export function MetricInfo({ definition, label }: { definition: MetricDefinition | undefined; label?: string }) {
  const id = useId();
  const [open, setOpen] = useState(false);
  if (!definition) return null;
  const name = label ?? definition.label;
  return (
    <span className="analytics__tip" onMouseEnter={() => setOpen(true)} onMouseLeave={() => setOpen(false)}>
      <button
        type="button"
        className="analytics__info"
        aria-label={`What ${name} means`}
        aria-describedby={id}
        onFocus={() => setOpen(true)}
        onBlur={() => setOpen(false)}
        onClick={() => setOpen((v) => !v)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpen(false);
        }}
      >
        <IconInfo size={14} />
      </button>
      <span role="tooltip" id={id} className="analytics__tooltip" hidden={!open}>
        {definitionText(definition)}
      </span>
    </span>
  );
}

/** The tooltip's words: the definition and, unless it already says so, the unit. */
export function definitionText(d: MetricDefinition): string {
  return `${d.definition} Unit: ${d.unit}.`;
}
