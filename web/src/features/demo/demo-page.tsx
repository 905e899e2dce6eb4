import { useState } from 'react';
import { Alert } from '../../components/alert';
import { LoadingScreen } from '../../components/loading-screen';
import { errorMessage } from '../../lib/api';
import { defaultSample, useGetDemoSamplesQuery } from './demo-api';

/** /demo — the bundled sample models, listed by name. */
export default function DemoPage() {
  const { data: samples = [], isLoading, error } = useGetDemoSamplesQuery();
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const selected = samples.find((s) => s.id === selectedId) ?? defaultSample(samples);

  return (
    <div className="page-narrow demo">
      <h1 className="page__title">3D Model Demo</h1>
      {isLoading ? (
        <LoadingScreen />
      ) : error ? (
        <Alert tone="error">{errorMessage(error, 'The demo models could not be loaded.')}</Alert>
      ) : samples.length === 0 ? (
        <div className="card empty-state">
          <p>No demo models found. Add folders with a .glb and an image under web/public/demo/ to show them here.</p>
          <p className="muted">Each folder name becomes the sample id; dashes and underscores turn into spaces in its display name.</p>
        </div>
      ) : (
        <div className="demo__layout">
          <div className="field">
            <label htmlFor="demo-product">Product</label>
            <select id="demo-product" value={selected?.id ?? ''} onChange={(e) => setSelectedId(e.target.value)}>
              {samples.map((s) => (
                <option key={s.id} value={s.id}>
                  {s.name}
                </option>
              ))}
            </select>
          </div>
          <ul className="demo__list" aria-label="Demo samples">
            {samples.map((s) => (
              <li key={s.id}>
                <button type="button" className={s.id === selected?.id ? 'demo__sample demo__sample--active' : 'demo__sample'} aria-pressed={s.id === selected?.id} onClick={() => setSelectedId(s.id)}>
                  <img src={s.imageUrl} alt="" loading="lazy" width={64} height={64} />
                  <span>{s.name}</span>
                </button>
              </li>
            ))}
          </ul>
          {selected && (
            <figure className="card demo__reference">
              <img src={selected.imageUrl} alt={`Reference photo: ${selected.name}`} />
              <figcaption>
                {selected.name} · <a href={selected.meshUrl} download>Download model (.glb)</a>
              </figcaption>
            </figure>
          )}
        </div>
      )}
    </div>
  );
}
