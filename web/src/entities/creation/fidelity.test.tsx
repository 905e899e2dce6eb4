import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import {
  FIDELITY_MEASURES,
  FIDELITY_MEASURES_SPIN,
  FIDELITY_NOT_MEASURED,
  FidelityBadge,
  FidelityCaption,
  FidelityWarning,
  fidelityMeasures,
  LOW_FIDELITY_ADVICE,
  LOW_FIDELITY_ADVICE_SPIN,
  lowFidelityAdvice,
} from './fidelity';

/** A build's score as the preview shows it: badge, caption and warning. */
function Fidelity({ score, views }: { score: number | null; views: number }) {
  return (
    <>
      <FidelityBadge score={score} views={views} />
      <FidelityCaption score={score} views={views} />
      <FidelityWarning score={score} views={views} />
    </>
  );
}

describe('mesh fidelity texts', () => {
  it('a multi-photo build with a score is a spin set: its texts are about the spin set', () => {
    expect(fidelityMeasures(1)).toBe(FIDELITY_MEASURES);
    expect(fidelityMeasures(24)).toBe(FIDELITY_MEASURES_SPIN);
    expect(lowFidelityAdvice(1)).toBe(LOW_FIDELITY_ADVICE);
    expect(lowFidelityAdvice(24)).toBe(LOW_FIDELITY_ADVICE_SPIN);
  });

  it("a spin set's high score says what it measures: two halves agreeing, not the photo", () => {
    const { container } = render(<Fidelity score={91} views={24} />);
    const badge = screen.getByTestId('fidelity');
    expect(badge).toHaveTextContent('Mesh fidelity 91%');
    expect(badge).not.toHaveTextContent('(low)');
    expect(badge).toHaveAttribute('title', FIDELITY_MEASURES_SPIN);
    expect(screen.getByTestId('fidelity-caption')).toHaveTextContent(FIDELITY_MEASURES_SPIN);
    expect(container).not.toHaveTextContent('How closely the model matches your photo');
    expect(screen.queryByRole('status')).toBeNull();
  });

  it("a spin set's low score asks for the spin set again, not for more photos", () => {
    const { container } = render(<Fidelity score={40} views={24} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent('Mesh fidelity 40% (low)');
    expect(screen.getByTestId('fidelity')).toHaveAttribute('title', FIDELITY_MEASURES_SPIN);
    const alert = screen.getByRole('status');
    expect(alert.querySelector('strong')).toHaveTextContent(LOW_FIDELITY_ADVICE_SPIN);
    expect(alert).toHaveTextContent('(mesh fidelity 40%)');
    expect(container).not.toHaveTextContent(LOW_FIDELITY_ADVICE);
    expect(container).not.toHaveTextContent('One photo shows one side');
    expect(screen.queryByTestId('fidelity-caption')).toBeNull();
  });

  it("a single photo's score keeps its texts", () => {
    const { unmount } = render(<Fidelity score={40} views={1} />);
    expect(screen.getByTestId('fidelity')).toHaveAttribute('title', FIDELITY_MEASURES);
    const alert = screen.getByRole('status');
    expect(alert.querySelector('strong')).toHaveTextContent(LOW_FIDELITY_ADVICE);
    expect(alert).toHaveTextContent('part of this shape is estimated (mesh fidelity 40%)');
    expect(alert).not.toHaveTextContent(LOW_FIDELITY_ADVICE_SPIN);
    unmount();
    render(<FidelityCaption score={91} />);
    expect(screen.getByTestId('fidelity-caption')).toHaveTextContent(FIDELITY_MEASURES);
  });

  it('a hand-held multi-photo build has no score and says so', () => {
    render(<Fidelity score={null} views={8} />);
    expect(screen.getByTestId('fidelity')).toHaveTextContent(FIDELITY_NOT_MEASURED);
    expect(screen.getByRole('status')).toHaveTextContent('It is built from 8 photos and has no fidelity score');
    expect(screen.queryByTestId('fidelity-caption')).toBeNull();
  });
});
