import { useEffect, useMemo, useState } from 'react';
import { API_BASE } from '../../lib/api';
import {
  buildReference,
  filterReference,
  type BodyView,
  type OpenApiDoc,
  type OperationView,
} from './api-docs-model';
import './api-docs.css';

/** Where the reference is read from: the document the API itself serves (same origin). */
export const OPENAPI_URL = `${API_BASE}/openapi.json`;

type Load = { state: 'loading' } | { state: 'error'; message: string } | { state: 'ready'; doc: OpenApiDoc };

/**
 * /docs/api — the API reference, rendered from GET /api/openapi.json so it always shows the
 * running server's document. Plain React (no third-party renderer): it works under the app's
 * CSP (script-src 'self', no eval, no blob workers) and costs nothing outside this route.
 */
export default function ApiDocsPage() {
  const [load, setLoad] = useState<Load>({ state: 'loading' });
  const [query, setQuery] = useState('');

  useEffect(() => {
    let live = true;
    fetch(OPENAPI_URL, { headers: { Accept: 'application/json' } })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The API reference could not be loaded (HTTP ${res.status}).`);
        const doc = (await res.json()) as OpenApiDoc;
        if (live) setLoad({ state: 'ready', doc });
      })
      .catch((err: unknown) => {
        if (live) setLoad({ state: 'error', message: err instanceof Error ? err.message : String(err) });
      });
    return () => {
      live = false;
    };
  }, []);

  const all = useMemo(() => (load.state === 'ready' ? buildReference(load.doc) : []), [load]);
  const shown = useMemo(() => filterReference(all, query), [all, query]);

  // Anchors work on first load too: once the document is rendered, scroll to the hash.
  useEffect(() => {
    if (load.state !== 'ready' || !window.location.hash) return;
    document.getElementById(decodeURIComponent(window.location.hash.slice(1)))?.scrollIntoView?.();
  }, [load.state]);

  if (load.state === 'loading') return <div className="api-docs page-narrow" aria-busy="true">Loading the API reference…</div>;
  if (load.state === 'error') {
    return (
      <div className="api-docs page-narrow" role="alert">
        {load.message}
      </div>
    );
  }
  const info = load.doc.info ?? {};
  const count = shown.reduce((n, t) => n + t.operations.length, 0);
  return (
    <div className="api-docs">
      <header className="api-docs__head">
        <h1 className="page__title">{info.title ?? 'API reference'}</h1>
        <p className="api-docs__version">
          Version {info.version} · OpenAPI 3.1 · <a href={OPENAPI_URL}>openapi.json</a>
        </p>
        {info.description && <p className="api-docs__intro">{info.description}</p>}
        <label className="api-docs__search">
          <span>Search operations</span>
          <input type="search" value={query} onChange={(e) => setQuery(e.target.value)} placeholder="e.g. POST jobs, publish" />
        </label>
        <p className="api-docs__count" aria-live="polite">
          {count} {count === 1 ? 'operation' : 'operations'}
        </p>
      </header>
      <div className="api-docs__layout">
        <nav className="api-docs__toc" aria-label="Operations">
          {shown.map((t) => (
            <div key={t.name}>
              <a className="api-docs__toc-tag" href={`#${t.anchor}`}>
                {t.name}
              </a>
              <ul>
                {t.operations.map((o) => (
                  <li key={o.id}>
                    <a href={`#${o.anchor}`}>
                      <span className={`api-docs__method api-docs__method--${o.method.toLowerCase()}`}>{o.method}</span> {o.path}
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <main className="api-docs__main">
          {shown.length === 0 && <p>No operation matches “{query}”.</p>}
          {shown.map((t) => (
            <section key={t.name} id={t.anchor} className="api-docs__tag">
              <h2>{t.name}</h2>
              {t.description && <p>{t.description}</p>}
              {t.operations.map((o) => (
                <Operation key={o.id} op={o} />
              ))}
            </section>
          ))}
        </main>
      </div>
    </div>
  );
}

function Operation({ op }: { op: OperationView }) {
  return (
    <article id={op.anchor} className="api-docs__op" aria-labelledby={`${op.anchor}-title`}>
      <h3 id={`${op.anchor}-title`}>
        <span className={`api-docs__method api-docs__method--${op.method.toLowerCase()}`}>{op.method}</span>{' '}
        <code>{op.path}</code>
        <a className="api-docs__anchor" href={`#${op.anchor}`} aria-label={`Link to ${op.summary}`}>
          #
        </a>
      </h3>
      <p className="api-docs__summary">
        {op.summary} <span className="api-docs__access">{op.access === 'public' ? 'Public' : `API key scope: ${op.access}`}</span>
      </p>
      {op.description && <p>{op.description}</p>}
      {op.params.length > 0 && (
        <table className="api-docs__table">
          <caption>Parameters</caption>
          <thead>
            <tr>
              <th>Name</th>
              <th>In</th>
              <th>Type</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {op.params.map((p) => (
              <tr key={`${p.in}-${p.name}`}>
                <td>
                  <code>{p.name}</code>
                  {p.required && <span className="api-docs__req"> required</span>}
                </td>
                <td>{p.in}</td>
                <td>{p.type}</td>
                <td>{p.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {op.request && <Body title="Request body" body={op.request} />}
      <h4>Responses</h4>
      <ul className="api-docs__responses">
        {op.responses.map((r) => (
          <li key={r.status}>
            <strong>{r.status}</strong> {r.description}
            {r.body && r.status.startsWith('2') && <Body title={`${r.status} body`} body={r.body} />}
          </li>
        ))}
      </ul>
    </article>
  );
}

function Body({ title, body }: { title: string; body: BodyView }) {
  return (
    <div className="api-docs__body">
      <p>
        {title}: <code>{body.mediaType}</code> — {body.type}
      </p>
      {body.fields.length > 0 && (
        <table className="api-docs__table">
          <thead>
            <tr>
              <th>Field</th>
              <th>Type</th>
              <th>Description</th>
            </tr>
          </thead>
          <tbody>
            {body.fields.map((f) => (
              <tr key={f.name}>
                <td>
                  <code>{f.name}</code>
                  {f.required && <span className="api-docs__req"> required</span>}
                </td>
                <td>{f.type}</td>
                <td>{f.description}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {body.example !== undefined && (
        <details className="api-docs__example">
          <summary>Example</summary>
          <pre>{body.example}</pre>
        </details>
      )}
    </div>
  );
}
