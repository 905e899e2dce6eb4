/** Usage bar with an accessible value. */
export function Meter({ label, percent }: { label: string; percent: number }) {
  const tone = percent >= 90 ? 'danger' : percent >= 70 ? 'warn' : 'ok';
  return (
    <div className="meter" role="meter" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={percent} aria-valuetext={`${percent}%`}>
      <div className={`meter__bar meter__bar--${tone}`} style={{ width: `${percent}%` }} />
    </div>
  );
}
