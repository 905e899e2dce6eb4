import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SpinCheck, spinFilledShare } from './spin-check';

describe('the check under a spin model', () => {
  it('names the filled hollow the photos disagree on, when they do', () => {
    const stats = { spin: { surfaceDisagreement: 0.158, halvesAgreement: 0.781 } };
    render(<SpinCheck score={61} views={24} stats={stats} />);
    expect(screen.getByRole('status')).toHaveTextContent('(mesh fidelity 61%)');
    expect(screen.getByTestId('spin-filled')).toHaveTextContent(
      "Here the photos show other colours than the model on 16% of its surface: a hollow, such as a dish's inside or a car's open windows, was filled there.",
    );
    expect(screen.getByRole('status')).toHaveTextContent('shoot the spin set again');
  });

  it('says nothing of a hollow where the photos agree, nor anything under a sound model', () => {
    const { unmount } = render(<SpinCheck score={35} views={24} stats={{ spin: { surfaceDisagreement: 0.003 } }} />);
    expect(screen.getByRole('status')).toHaveTextContent('(mesh fidelity 35%)');
    expect(screen.queryByTestId('spin-filled')).toBeNull();
    unmount();
    const { container } = render(<SpinCheck score={93} views={24} stats={{ spin: { surfaceDisagreement: 0.05 } }} />);
    expect(container).toBeEmptyDOMElement();
  });

  it('reads the share from the stats, and only a share', () => {
    expect(spinFilledShare({ spin: { surfaceDisagreement: 0.327 } })).toBe(33);
    expect(spinFilledShare({ spin: { surfaceDisagreement: 0.039 } })).toBeNull();
    expect(spinFilledShare({ spin: { surfaceDisagreement: '0.3' } })).toBeNull();
    expect(spinFilledShare({ spin: {} })).toBeNull();
    expect(spinFilledShare(null)).toBeNull();
  });
});
