/** Shown while authentication or a lazily loaded page is still loading. */
export function LoadingScreen({ fullPage = false }: { fullPage?: boolean }) {
  return (
    <div className={fullPage ? 'loading-screen loading-screen--full' : 'loading-screen'} role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      <span>Loading...</span>
    </div>
  );
}
