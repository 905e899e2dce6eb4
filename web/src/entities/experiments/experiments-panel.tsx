import { useId, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { Alert } from '../../components/alert';
import { errorMessage } from '../../lib/api';
import { relativeTime } from '../../lib/format';
import {
  BACKGROUNDS,
  formatExposure,
  LIGHTINGS,
  openingVariant,
  POSTERS,
  type Poster,
  type Variant,
} from '../product/configurator-rules';
import { publishingURL } from '../product/add-product-rules';
import { ExposureField, PosterField } from '../product/exposure-field';
import type { ProductDetail } from '../product/product-rules';
import {
  GOAL_LABEL,
  useApplyExperimentMutation,
  useChangeExperimentMutation,
  useExperimentResultsQuery,
  useProductExperimentsQuery,
  useStartExperimentMutation,
  type ArmResult,
  type Experiment,
  type ExperimentGoal,
  type ExperimentResults,
} from './experiments-api';
import './experiments.css';

/**
 * Experiments on a product's live page (issue 52): start an A/B test of how the page is shown,
 * read its results, pause, stop, or make an arm the default. The control is the page as it is;
 * the other arm changes the camera, lighting, background, auto-rotate, exposure, what shows while
 * the model loads, or the variant the page opens on.
 */
/**
 * canResume false: the workspace requires approval and the merchant is an editor (issue 51), so a
 * paused experiment cannot be resumed by them (the server answers 403 approval_required); pausing,
 * stopping and making an arm the default stay.
 */
export function ExperimentsPanel({ product: p, canResume = true }: { product: ProductDetail; canResume?: boolean }) {
  const { data, isLoading, error } = useProductExperimentsQuery(p.id, { refetchOnMountOrArgChange: true });
  const items = data?.items ?? [];
  const open = items.find((e) => e.state !== 'stopped');
  const past = items.filter((e) => e.state === 'stopped');
  const live = !!p.publication?.shareURL;
  return (
    <section className="card" aria-labelledby="experiments-title">
      <h2 id="experiments-title" className="section-title">
        Experiments
      </h2>
      <p className="muted">Test how your live page is shown: shoppers are split between the page as it is and a variation, and the results say which one reaches your goal more often.</p>
      {isLoading ? (
        <p className="muted">Loading…</p>
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The experiments could not be loaded.')}</Alert>
      ) : open ? (
        <ExperimentResultsView id={open.id} variants={p.config.variants} canResume={canResume} />
      ) : live ? (
        <NewExperimentForm product={p} />
      ) : (
        <p data-testid="experiments-unpublished">
          Publish this product first: an experiment tests how its live page is shown. <Link to={publishingURL(p.id)}>Publish</Link>
        </p>
      )}
      <PastExperiments past={past} />
    </section>
  );
}

function NewExperimentForm({ product: p }: { product: ProductDetail }) {
  const id = useId();
  const presets = p.config.presets;
  const [goal, setGoal] = useState<ExperimentGoal>('clicks');
  const [name, setName] = useState('Variation');
  const [cameraOrbit, setCameraOrbit] = useState(presets?.cameraOrbit ?? '');
  const [lighting, setLighting] = useState(presets?.lighting ?? 'Studio');
  const [background, setBackground] = useState(presets?.background ?? 'Transparent');
  const [autospin, setAutospin] = useState(presets?.autospin ?? true);
  const [exposure, setExposure] = useState(presets?.exposure ?? 1);
  const [poster, setPoster] = useState<Poster>(presets?.poster ?? 'model');
  const [defaultVariant, setDefaultVariant] = useState('');
  const variants = p.config.variants;
  const pageOpensOn = openingVariant(variants, presets?.defaultVariantId ?? '');
  const [share, setShare] = useState(100);
  const [start, { isLoading, error }] = useStartExperimentMutation();
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void start({
      productId: p.id,
      body: {
        goal,
        trafficShare: share / 100,
        arms: [
          { name: 'Control' },
          {
            name: name.trim() || 'Variation',
            // The opening variant is left out when it is the page's own ('' keeps the product's).
            preset: { cameraOrbit, lighting, background, autospin, exposure, poster, ...(defaultVariant ? { defaultVariant } : {}) },
          },
        ],
      },
    });
  };
  return (
    <form className="form experiment-form" onSubmit={onSubmit} aria-label="New experiment" noValidate>
      <div className="field">
        <label htmlFor={`${id}-goal`}>Goal</label>
        <select id={`${id}-goal`} value={goal} onChange={(e) => setGoal(e.target.value as ExperimentGoal)}>
          {(Object.keys(GOAL_LABEL) as ExperimentGoal[]).map((g) => (
            <option key={g} value={g}>
              {GOAL_LABEL[g]}
            </option>
          ))}
        </select>
      </div>
      <fieldset className="experiment-form__arm">
        <legend>The variation shoppers see beside your page as it is</legend>
        <div className="field">
          <label htmlFor={`${id}-name`}>Name</label>
          <input id={`${id}-name`} value={name} maxLength={40} onChange={(e) => setName(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor={`${id}-orbit`}>Camera</label>
          <input id={`${id}-orbit`} value={cameraOrbit} onChange={(e) => setCameraOrbit(e.target.value)} aria-describedby={`${id}-orbit-help`} spellCheck={false} />
          <p id={`${id}-orbit-help`} className="field__help">
            Angle around, angle down and distance, for example 30deg 70deg 80%.
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-lighting`}>Lighting</label>
          <select id={`${id}-lighting`} value={lighting} onChange={(e) => setLighting(e.target.value)}>
            {LIGHTINGS.map((l) => (
              <option key={l}>{l}</option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-background`}>Background</label>
          <select id={`${id}-background`} value={background} onChange={(e) => setBackground(e.target.value)}>
            {BACKGROUNDS.map((b) => (
              <option key={b}>{b}</option>
            ))}
          </select>
        </div>
        <label className="checkbox">
          <input type="checkbox" checked={autospin} onChange={(e) => setAutospin(e.target.checked)} /> Auto-rotate
        </label>
        <ExposureField id={`${id}-exposure`} value={exposure} onChange={setExposure} rangeClass="experiment-form__range" valueTestId="experiment-exposure-value" />
        <PosterField id={`${id}-poster`} value={poster} onChange={setPoster} />
        {variants.length > 1 && (
          <div className="field">
            <label htmlFor={`${id}-opening`}>Opens on variant</label>
            <select id={`${id}-opening`} value={defaultVariant} onChange={(e) => setDefaultVariant(e.target.value)}>
              <option value="">As on your page{pageOpensOn ? ` (${pageOpensOn.name})` : ''}</option>
              {variants.map((v) => (
                <option key={v.id} value={v.id}>
                  {v.name}
                </option>
              ))}
            </select>
          </div>
        )}
      </fieldset>
      <div className="field">
        <label htmlFor={`${id}-share`}>Shoppers in the experiment (%)</label>
        <input id={`${id}-share`} type="number" min={1} max={100} value={share} onChange={(e) => setShare(Number(e.target.value))} />
      </div>
      {error && <Alert tone="error">{errorMessage(error, 'The experiment could not be started.')}</Alert>}
      <button type="submit" className="btn btn--primary" disabled={isLoading}>
        {isLoading ? 'Starting…' : 'Start experiment'}
      </button>
    </form>
  );
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const signedPct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(100 * x).toFixed(1)} %`;

function ExperimentResultsView({ id, variants, canResume }: { id: string; variants: Variant[]; canResume: boolean }) {
  const { data: r, error } = useExperimentResultsQuery(id, { pollingInterval: 30_000, refetchOnMountOrArgChange: true });
  const [change, changing] = useChangeExperimentMutation();
  const [apply, applying] = useApplyExperimentMutation();
  if (error) return <Alert tone="error">{errorMessage(error, 'The results could not be loaded.')}</Alert>;
  if (!r) return <p className="muted">Loading…</p>;
  const problem = changing.error ?? applying.error;
  return (
    <div className="experiment" data-testid="experiment-results">
      <p>
        <strong>{r.state === 'paused' ? 'Paused' : 'Running'}</strong> since <time dateTime={r.startedAt}>{relativeTime(r.startedAt)}</time> · goal: {GOAL_LABEL[r.goal]} ·{' '}
        {Math.round(r.trafficShare * 100)} % of shoppers
      </p>
      <Decision results={r} />
      <div className="experiment__scroll">
      <table className="table experiment__arms">
        <thead>
          <tr>
            <th scope="col">Arm</th>
            <th scope="col">Visitors</th>
            <th scope="col">{GOAL_LABEL[r.goal]}</th>
            <th scope="col">Rate (95 % interval)</th>
            <th scope="col">Uplift (95 % interval)</th>
            <th scope="col">Chance to beat control</th>
            <th scope="col" aria-label="Actions" />
          </tr>
        </thead>
        <tbody>
          {r.arms.map((a) => (
            <ArmRow key={a.id} arm={a} variants={variants} enough={r.arms.every((x) => x.visitors >= MIN_VISITORS)} busy={applying.isLoading} onApply={() => void apply({ id: r.id, armId: a.id })} />
          ))}
        </tbody>
      </table>
      </div>
      <p className="muted experiment__rule">{r.rule}</p>
      {problem && <Alert tone="error">{errorMessage(problem, 'The experiment could not be changed.')}</Alert>}
      <div className="experiment__actions">
        {r.state === 'running' ? (
          <button type="button" className="btn btn--secondary" disabled={changing.isLoading} onClick={() => void change({ id: r.id, action: 'pause' })}>
            Pause
          </button>
        ) : canResume ? (
          <button type="button" className="btn btn--secondary" disabled={changing.isLoading} onClick={() => void change({ id: r.id, action: 'resume' })}>
            Resume
          </button>
        ) : (
          <p className="muted" data-testid="experiment-resume-owner">
            Paused. This workspace requires approval before anything goes live, so the owner resumes it.
          </p>
        )}
        <button type="button" className="btn btn--secondary" disabled={changing.isLoading} onClick={() => void change({ id: r.id, action: 'stop' })}>
          Stop experiment
        </button>
      </div>
    </div>
  );
}

function Decision({ results: r }: { results: ExperimentResults }) {
  const winner = r.arms.find((a) => a.id === r.winnerArmId);
  if (r.decision === 'winner' && winner) {
    return (
      <div data-testid="experiment-decision">
        <Alert tone="success">
          {winner.name} wins: {signedPct(r.uplift)} over control, with a {pct(r.probabilityToBeat)} chance to beat it. Make it the default to show it to every shopper.
        </Alert>
      </div>
    );
  }
  if (r.decision === 'control is better') {
    return (
      <div data-testid="experiment-decision">
        <Alert tone="info">Your page as it is does better than every variation. Stop the experiment to keep it.</Alert>
      </div>
    );
  }
  const lead = r.arms.find((a) => a.id === r.leadingArmId);
  return (
    <p data-testid="experiment-decision">
      <strong>No clear winner yet.</strong>
      {lead?.sampleStillNeeded ? ` About ${lead.sampleStillNeeded.toLocaleString()} more visitors an arm are needed at the difference seen so far.` : ''}
    </p>
  );
}

/** The visitors each arm needs before the server decides anything (experiment.MinVisitors). */
const MIN_VISITORS = 100;

/** An arm's presentation in words: "30deg 70deg 80% · Studio · Transparent · auto-rotate · exposure 1.40 · …". */
function presetSummary(preset: ArmResult['preset'], variants: Pick<Variant, 'id' | 'name'>[]): string {
  const parts = [preset.cameraOrbit, preset.lighting, preset.background];
  if (preset.autospin) parts.push('auto-rotate');
  // Arms made before issue 52 carry no exposure or poster: they show the product's own.
  if (typeof preset.exposure === 'number' && preset.exposure > 0) parts.push(`exposure ${formatExposure(preset.exposure)}`);
  const poster = POSTERS.find((o) => o.value === preset.poster);
  if (poster) parts.push(poster.value === 'none' ? 'loading bar only' : 'picture while loading');
  if (preset.defaultVariant) parts.push(`opens on ${variants.find((v) => v.id === preset.defaultVariant)?.name ?? 'a removed variant'}`);
  return parts.filter(Boolean).join(' · ');
}

function ArmRow({ arm: a, variants, enough, busy, onApply }: { arm: ArmResult; variants: Variant[]; enough: boolean; busy: boolean; onApply: () => void }) {
  const interval = a.upliftInterval;
  // Before every arm has its first 100 visitors the interval is too wide to read: say so.
  const uplift = a.control || a.uplift === undefined ? '—' : !enough ? `Needs ${MIN_VISITORS} visitors an arm` : `${signedPct(a.uplift)}${interval ? ` (${signedPct(interval[0])} to ${signedPct(interval[1])})` : ''}`;
  return (
    <tr data-testid={`arm-${a.control ? 'control' : 'variation'}`}>
      <th scope="row">
        {a.name}
        {a.control && a.name.toLowerCase() !== 'control' && <span className="muted"> (control)</span>}
        <div className="muted experiment__preset" data-testid="arm-preset">
          {presetSummary(a.preset, variants)}
        </div>
      </th>
      <td>{a.visitors.toLocaleString()}</td>
      <td>{a.conversions.toLocaleString()}</td>
      <td>
        {pct(a.rate)} ({pct(a.interval[0])}–{pct(a.interval[1])})
      </td>
      <td>{uplift}</td>
      <td>{a.control || a.probabilityToBeat === undefined || !enough ? '—' : pct(a.probabilityToBeat)}</td>
      <td>
        <button type="button" className="btn btn--secondary btn--sm" disabled={busy} onClick={onApply}>
          {a.control ? 'Keep the page as it is' : 'Make this the default'}
        </button>
      </td>
    </tr>
  );
}

/** The product's ended experiments, folded away: the editing panel and the read-only page show the same list. */
export function PastExperiments({ past }: { past: Experiment[] }) {
  if (past.length === 0) return null;
  return (
    <details className="experiments-past">
      <summary>Past experiments ({past.length})</summary>
      {past.map((e) => (
        <PastExperiment key={e.id} experiment={e} />
      ))}
    </details>
  );
}

function PastExperiment({ experiment: e }: { experiment: Experiment }) {
  const applied = e.arms.find((a) => a.id === e.appliedArmId);
  return (
    <p className="muted">
      {GOAL_LABEL[e.goal]}: {e.arms.map((a) => a.name).join(' vs ')}, {e.stoppedAt ? <time dateTime={e.stoppedAt}>ended {relativeTime(e.stoppedAt)}</time> : 'ended'}
      {applied ? `; ${applied.name} made the default` : e.stopReason === 'unpublished' ? '; the page was unpublished' : ''}
    </p>
  );
}
