import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { productDetail } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { parseProductDetail } from '../product/product-rules';
import { ExperimentsPanel } from './experiments-panel';

afterEach(() => vi.unstubAllGlobals());

const live = { publicationId: 'pub1', slug: 'AbCdEfGhIjKlMnOp', shareURL: 'http://localhost/v/AbCdEfGhIjKlMnOp', embedCode: '', qrURL: '', version: 1 };
const preset = { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 105%', autospin: true, hotspots: null, defaultVariant: '' };
const experiment = {
  id: 'e1',
  productId: 'p1',
  publicationId: 'pub1',
  goal: 'clicks',
  trafficShare: 1,
  state: 'running',
  startedAt: '2026-11-30T04:00:00Z',
  stoppedAt: null,
  stopReason: '',
  appliedArmId: '',
  arms: [
    { id: 'a0', name: 'Control', control: true, preset },
    { id: 'a1', name: 'Close-up', control: false, preset: { ...preset, cameraOrbit: '30deg 70deg 80%', autospin: false } },
  ],
};

function render(detail: Record<string, unknown>) {
  signIn();
  const product = parseProductDetail(detail);
  return renderRoutes([{ path: '/', element: <ExperimentsPanel product={product} /> }]);
}

describe('ExperimentsPanel (issue 52)', () => {
  it('asks for a published page first', async () => {
    stubFetch({ 'GET /api/products/p1/experiments': () => ({ items: [] }) });
    render(productDetail());
    expect(await screen.findByTestId('experiments-unpublished')).toHaveTextContent('Publish this product first');
  });

  it('starts an experiment with the control and the variation the merchant set up, then shows its results', async () => {
    let items: unknown[] = [];
    const { calls } = stubFetch({
      'GET /api/products/p1/experiments': () => ({ items }),
      'POST /api/products/p1/experiments': () => {
        items = [experiment];
        return experiment;
      },
      'GET /api/experiments/e1': () => ({
        ...experiment,
        arms: [
          { ...experiment.arms[0], visitors: 40, conversions: 2, rate: 0.05, interval: [0.014, 0.165] },
          { ...experiment.arms[1], visitors: 38, conversions: 3, rate: 0.079, interval: [0.027, 0.208], uplift: 0.58, upliftInterval: [-0.9, 40], probabilityToBeat: 0.7, decision: 'no clear winner yet', sampleStillNeeded: 900 },
        ],
        leadingArmId: 'a1',
        uplift: 0.58,
        upliftInterval: [-0.9, 40],
        probabilityToBeat: 0.7,
        decision: 'no clear winner yet',
        winnerArmId: '',
        rule: 'An arm wins when its 95 % interval for the uplift over control lies wholly above zero.',
      }),
    });
    render(productDetail({ publication: live }));
    const form = await screen.findByRole('form', { name: 'New experiment' });
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByLabelText('Goal'), 'ar');
    await user.clear(within(form).getByLabelText('Name'));
    await user.type(within(form).getByLabelText('Name'), 'Close-up');
    await user.clear(within(form).getByLabelText('Camera'));
    await user.type(within(form).getByLabelText('Camera'), '30deg 70deg 80%');
    await user.click(within(form).getByLabelText('Auto-rotate'));
    await user.click(within(form).getByRole('button', { name: 'Start experiment' }));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      goal: 'ar',
      trafficShare: 1,
      arms: [{ name: 'Control' }, { name: 'Close-up', preset: { cameraOrbit: '30deg 70deg 80%', lighting: 'Studio', background: 'Transparent', autospin: false } }],
    });
    const results = await screen.findByTestId('experiment-results');
    expect(within(results).getByTestId('experiment-decision')).toHaveTextContent('No clear winner yet. About 900 more visitors an arm are needed');
    const variation = within(results).getByTestId('arm-variation');
    expect(variation).toHaveTextContent('Close-up');
    expect(variation).toHaveTextContent('30deg 70deg 80% · Studio · Transparent');
    // 38 and 40 visitors: the uplift is not read out before 100 an arm.
    expect(variation).toHaveTextContent('Needs 100 visitors an arm');
    expect(within(results).getByTestId('arm-control')).toHaveTextContent('Keep the page as it is');
  });
});
