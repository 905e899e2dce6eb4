import type { ScenePart } from '../../components/model-viewer/scene-graph';

/** The model's parts; choosing one selects it for Solo Mode. */
export function PartsPanel({
  parts,
  selectedId,
  onSelect,
  loading,
}: {
  parts: ScenePart[];
  selectedId: string | null;
  onSelect: (id: string) => void;
  loading: boolean;
}) {
  return (
    <aside className="card parts-panel" aria-labelledby="parts-title">
      <h2 id="parts-title" className="section-title">
        Parts
      </h2>
      {parts.length === 0 ? (
        <p className="muted">{loading ? 'Reading the model’s parts…' : 'This model has a single part.'}</p>
      ) : (
        <ul className="parts-panel__list" data-testid="parts-list">
          {parts.map((p) => (
            <li key={p.id}>
              <button
                type="button"
                className={p.id === selectedId ? 'parts-panel__part parts-panel__part--active' : 'parts-panel__part'}
                aria-pressed={p.id === selectedId}
                onClick={() => onSelect(p.id)}
              >
                <span className="parts-panel__swatch" style={{ background: p.color ?? 'var(--color-border-strong)' }} aria-hidden="true" />
                <span className="parts-panel__name">{p.name}</span>
                {typeof p.share === 'number' && <span className="parts-panel__share muted">{Math.round(p.share * 100)}%</span>}
              </button>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
