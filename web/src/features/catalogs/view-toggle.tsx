import { useSearchParams } from 'react-router';

export type ViewMode = 'grid' | 'list';

/** Grid or list view, kept in the URL (?view=list) so a reload keeps it. */
export function useViewMode(): [ViewMode, (v: ViewMode) => void] {
  const [params, setParams] = useSearchParams();
  const mode: ViewMode = params.get('view') === 'list' ? 'list' : 'grid';
  const set = (v: ViewMode) => {
    const next = new URLSearchParams(params);
    if (v === 'list') next.set('view', 'list');
    else next.delete('view');
    setParams(next, { replace: true });
  };
  return [mode, set];
}

export function ViewToggle({ mode, onChange }: { mode: ViewMode; onChange: (v: ViewMode) => void }) {
  return (
    <div className="view-toggle" role="group" aria-label="View">
      <button type="button" className="btn btn--secondary btn--sm" aria-pressed={mode === 'grid'} onClick={() => onChange('grid')}>
        Grid
      </button>
      <button type="button" className="btn btn--secondary btn--sm" aria-pressed={mode === 'list'} onClick={() => onChange('list')}>
        List
      </button>
    </div>
  );
}
