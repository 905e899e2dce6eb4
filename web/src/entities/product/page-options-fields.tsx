/** A product page's two options before it is published: the email gate and deep links. */
export interface PageOptions {
  requireEmail: boolean;
  allowDeepLinks: boolean;
}

/**
 * The two checkboxes a Publish asks for first (issue 29 item 6), in the add-product wizard and in
 * an editor's request for approval (issue 51).
 */
export function PageOptionsFields({ value, onChange, disabled, className }: { value: PageOptions; onChange: (next: PageOptions) => void; disabled: boolean; className: string }) {
  return (
    <div className={className}>
      <label className="checkbox">
        <input type="checkbox" checked={value.requireEmail} disabled={disabled} onChange={(e) => onChange({ ...value, requireEmail: e.target.checked })} />
        Require email capture
      </label>
      <label className="checkbox">
        <input type="checkbox" checked={value.allowDeepLinks} disabled={disabled} onChange={(e) => onChange({ ...value, allowDeepLinks: e.target.checked })} />
        Allow deep links to variants
      </label>
    </div>
  );
}
