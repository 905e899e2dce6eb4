import { useId, useRef, useState } from 'react';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import type { ModelViewerElement } from '../../components/model-viewer/model-viewer-element';
import { resetCamera } from '../../components/model-viewer/scene-graph';
import { errorMessage } from '../../lib/api';
import { defaultSample, useGetDemoSamplesQuery } from './demo-api';
import { EXPOSURE, SHADOW, snapToStep, type DemoBackground } from './demo-rules';
import './demo.css';

/**
 * /demo and /workspace/demo — the bundled sample models in a live 3D viewer. The samples are
 * built procedurally by `worker samples` (internal/samples), and each reference image is a
 * software render of the same mesh, not a photo: the page says so.
 */
export default function DemoPage() {
  const { data: samples = [], isLoading, error } = useGetDemoSamplesQuery();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = samples.find((s) => s.id === selectedId) ?? defaultSample(samples);
  const [spin, setSpin] = useState(true);
  const [exposure, setExposure] = useState<number>(EXPOSURE.initial);
  const [shadow, setShadow] = useState<number>(SHADOW.initial);
  const [background, setBackground] = useState<DemoBackground>('light');
  const viewer = useRef<ModelViewerElement | null>(null);
  const ids = { product: useId(), exposure: useId(), shadow: useId() };

  return (
    <div className="page demo">
      <header className="page__header">
        <div>
          <h1 className="page__title">3D Model Demo</h1>
          <p className="page__subtitle">
            Sample models generated in code, each beside a software-rendered reference image of the same model. Drag to orbit, pinch or scroll to zoom.
          </p>
        </div>
      </header>
      {isLoading ? (
        <LoadingScreen />
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The demo models could not be loaded.')}</Alert>
      ) : samples.length === 0 || !selected ? (
        <div className="card empty-state">
          <p>
            No demo models found. Run <code>go run ./cmd/worker samples</code> (or <code>bin/worker samples</code>) to generate them: it
            writes each sample&apos;s model.glb and reference.png, and index.json, into web/public/demo/. Then rebuild the web app.
          </p>
          <p className="muted">Each folder name becomes the sample id; dashes and underscores turn into spaces in its display name.</p>
        </div>
      ) : (
        <>
          <div className="card demo__controls">
            <div className="field">
              <label htmlFor={ids.product}>Model</label>
              <select id={ids.product} value={selected.id} onChange={(e) => setSelectedId(e.target.value)} data-testid="demo-select">
                {samples.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                  </option>
                ))}
              </select>
            </div>
            <div className="field">
              <span className="field__label">Spin</span>
              <button type="button" className="btn btn--secondary btn--sm" aria-pressed={spin} onClick={() => setSpin(!spin)}>
                {spin ? 'On' : 'Off'}
              </button>
            </div>
            <div className="field demo__slider">
              <span className="demo__slider-head">
                <label htmlFor={ids.exposure}>Exposure</label>
                <output htmlFor={ids.exposure}>{exposure.toFixed(2)}</output>
              </span>
              <input id={ids.exposure} type="range" min={EXPOSURE.min} max={EXPOSURE.max} step={EXPOSURE.step} value={exposure} onChange={(e) => setExposure(snapToStep(Number(e.target.value), EXPOSURE))} />
            </div>
            <div className="field demo__slider">
              <span className="demo__slider-head">
                <label htmlFor={ids.shadow}>Shadow</label>
                <output htmlFor={ids.shadow}>{shadow.toFixed(2)}</output>
              </span>
              <input id={ids.shadow} type="range" min={SHADOW.min} max={SHADOW.max} step={SHADOW.step} value={shadow} onChange={(e) => setShadow(snapToStep(Number(e.target.value), SHADOW))} />
            </div>
            <div className="field">
              <span className="field__label">Background</span>
              <button type="button" className="btn btn--secondary btn--sm" aria-pressed={background === 'white'} onClick={() => setBackground(background === 'light' ? 'white' : 'light')}>
                {background === 'light' ? 'Light' : 'White'}
              </button>
            </div>
            <div className="field">
              <span className="field__label">Camera</span>
              <button type="button" className="btn btn--ghost btn--sm" onClick={() => viewer.current && resetCamera(viewer.current)}>
                Reset
              </button>
            </div>
          </div>
          <div className="demo__stage">
            <figure className="card demo__reference">
              <img src={selected.imageUrl} alt={`Reference image: ${selected.name}`} />
              <figcaption>{selected.name} · reference image (software render of the sample model)</figcaption>
            </figure>
            <ModelViewer
              ref={viewer}
              key={selected.id}
              className={`demo__viewer demo__viewer--${background}`}
              src={selected.meshUrl}
              alt={`3D model of ${selected.name}`}
              autoRotate={spin}
              exposure={exposure}
              shadowIntensity={shadow}
            />
          </div>
        </>
      )}
    </div>
  );
}
