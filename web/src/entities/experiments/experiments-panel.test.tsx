import { fireEvent, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { productDetail } from '../../test/fixtures';
import { renderRoutes, signIn, stubFetch } from '../../test/render';
import { parseProductDetail } from '../product/product-rules';
import { ExperimentsPanel } from './experiments-panel';

afterEach(() => vi.unstubAllGlobals());

const live = { publicationId: 'pub1', slug: 'AbCdEfGhIjKlMnOp', shareURL: 'http://localhost/v/AbCdEfGhIjKlMnOp', embedCode: '', qrURL: '', version: 1 };
const preset = { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 105%', autospin: true, exposure: 1, poster: 'model', hotspots: null, defaultVariant: '' };
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
    { id: 'a1', name: 'Close-up', control: false, preset: { ...preset, cameraOrbit: '30deg 70deg 80%', autospin: false, exposure: 0.6, poster: 'none', defaultVariant: 'v2' } },
  ],
};

const variants = [
  { id: 'v1', name: 'Default', material: 'original', parts: {}, sku: '', price: null, currency: '' },
  { id: 'v2', name: 'Walnut', material: 'original', parts: {}, sku: '', price: null, currency: '' },
];

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
    render(productDetail({ publication: live, variants, presets: { lighting: 'Studio', background: 'Transparent', backgroundColor: '#FFFFFF', cameraOrbit: '0deg 75deg 105%', autospin: true, exposure: 1.4, poster: 'model', defaultVariantId: '' } }));
    const form = await screen.findByRole('form', { name: 'New experiment' });
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByLabelText('Goal'), 'ar');
    await user.clear(within(form).getByLabelText('Name'));
    await user.type(within(form).getByLabelText('Name'), 'Close-up');
    await user.clear(within(form).getByLabelText('Camera'));
    await user.type(within(form).getByLabelText('Camera'), '30deg 70deg 80%');
    await user.click(within(form).getByLabelText('Auto-rotate'));
    // Exposure starts at the page's own and moves in steps of 0.05 from 0.25 to 2.
    const exposure = within(form).getByLabelText('Exposure');
    expect(exposure).toHaveAttribute('type', 'range');
    expect([exposure.getAttribute('min'), exposure.getAttribute('max'), exposure.getAttribute('step')]).toEqual(['0.25', '2', '0.05']);
    expect(within(form).getByTestId('experiment-exposure-value')).toHaveTextContent('1.40');
    fireEvent.change(exposure, { target: { value: '0.6' } });
    expect(within(form).getByTestId('experiment-exposure-value')).toHaveTextContent('0.60');
    expect(within(form).getByLabelText('While the model loads')).toHaveValue('model');
    await user.selectOptions(within(form).getByLabelText('While the model loads'), 'Loading bar only');
    const opening = within(form).getByLabelText('Opens on variant');
    expect(within(opening).getAllByRole('option').map((o) => o.textContent)).toEqual(['As on your page (Default)', 'Default', 'Walnut']);
    await user.selectOptions(opening, 'Walnut');
    await user.click(within(form).getByRole('button', { name: 'Start experiment' }));
    expect(calls.find((c) => c.method === 'POST')?.body).toEqual({
      goal: 'ar',
      trafficShare: 1,
      arms: [
        { name: 'Control' },
        {
          name: 'Close-up',
          preset: { cameraOrbit: '30deg 70deg 80%', lighting: 'Studio', background: 'Transparent', autospin: false, exposure: 0.6, poster: 'none', defaultVariant: 'v2' },
        },
      ],
    });
    const results = await screen.findByTestId('experiment-results');
    expect(within(results).getByTestId('experiment-decision')).toHaveTextContent('No clear winner yet. About 900 more visitors an arm are needed');
    const variation = within(results).getByTestId('arm-variation');
    expect(variation).toHaveTextContent('Close-up');
    expect(within(variation).getByTestId('arm-preset')).toHaveTextContent('30deg 70deg 80% · Studio · Transparent · exposure 0.60 · loading bar only · opens on Walnut');
    expect(within(within(results).getByTestId('arm-control')).getByTestId('arm-preset')).toHaveTextContent('0deg 75deg 105% · Studio · Transparent · auto-rotate · exposure 1.00 · picture while loading');
    // 38 and 40 visitors: the uplift is not read out before 100 an arm.
    expect(variation).toHaveTextContent('Needs 100 visitors an arm');
    expect(within(results).getByTestId('arm-control')).toHaveTextContent('Keep the page as it is');
  });

  it("leaves the opening variant out when the variation keeps the page's, and shows arms made before exposure existed", async () => {
    const old = { ...preset, exposure: 0, poster: '' };
    const oldExperiment = { ...experiment, arms: [{ ...experiment.arms[0], preset: old }, { ...experiment.arms[1], preset: { ...old, lighting: 'Outdoor' } }] };
    let items: unknown[] = [];
    const { calls } = stubFetch({
      'GET /api/products/p1/experiments': () => ({ items }),
      'POST /api/products/p1/experiments': () => {
        items = [oldExperiment];
        return oldExperiment;
      },
      'GET /api/experiments/e1': () => ({
        ...oldExperiment,
        arms: oldExperiment.arms.map((a) => ({ ...a, visitors: 0, conversions: 0, rate: 0, interval: [0, 0] })),
        leadingArmId: '',
        uplift: 0,
        upliftInterval: null,
        probabilityToBeat: 0,
        decision: 'no clear winner yet',
        winnerArmId: '',
        rule: '',
      }),
    });
    // One variant: no opening-variant choice to make.
    render(productDetail({ publication: live }));
    const form = await screen.findByRole('form', { name: 'New experiment' });
    expect(within(form).queryByLabelText('Opens on variant')).toBeNull();
    const user = userEvent.setup();
    await user.selectOptions(within(form).getByLabelText('Lighting'), 'Outdoor');
    await user.click(within(form).getByRole('button', { name: 'Start experiment' }));
    const body = calls.find((c) => c.method === 'POST')?.body as { arms: { preset?: Record<string, unknown> }[] };
    expect(body.arms[1].preset).toEqual({ cameraOrbit: '0deg 75deg 118%', lighting: 'Outdoor', background: 'Transparent', autospin: true, exposure: 1, poster: 'model' });
    const results = await screen.findByTestId('experiment-results');
    expect(within(within(results).getByTestId('arm-variation')).getByTestId('arm-preset')).toHaveTextContent(/^0deg 75deg 105% · Outdoor · Transparent · auto-rotate$/);
  });

  it('a paused experiment offers Resume, except to an editor under approvals, who is told the owner resumes it (issue 51)', async () => {
    const paused = { ...experiment, state: 'paused' };
    const results = {
      ...paused,
      arms: [
        { ...experiment.arms[0], visitors: 0, conversions: 0, rate: 0, interval: [0, 0] },
        { ...experiment.arms[1], visitors: 0, conversions: 0, rate: 0, interval: [0, 0], uplift: 0, upliftInterval: [0, 0], probabilityToBeat: 0.5, decision: 'no clear winner yet', sampleStillNeeded: 0 },
      ],
      decision: 'no clear winner yet',
      rule: 'An arm wins when its 95 % interval for the uplift over control lies wholly above zero.',
    };
    stubFetch({ 'GET /api/products/p1/experiments': () => ({ items: [paused] }), 'GET /api/experiments/e1': () => results });
    signIn();
    const product = parseProductDetail(productDetail({ publication: live, variants }));
    const { unmount } = renderRoutes([{ path: '/', element: <ExperimentsPanel product={product} /> }]);
    expect(await screen.findByRole('button', { name: 'Resume' })).toBeInTheDocument();
    unmount();
    renderRoutes([{ path: '/', element: <ExperimentsPanel product={product} canResume={false} /> }]);
    expect(await screen.findByTestId('experiment-resume-owner')).toHaveTextContent('the owner resumes it');
    expect(screen.queryByRole('button', { name: 'Resume' })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Stop experiment' })).toBeInTheDocument();
  });
});
