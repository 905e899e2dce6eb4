import { passwordHints, passwordStrength, strengthLevel } from './auth-rules';

/** Strength bar and live hints shown under a non-empty password. */
export function PasswordStrength({ password, id }: { password: string; id: string }) {
  const hints = passwordHints(password);
  const score = passwordStrength(password);
  const level = strengthLevel(score);
  return (
    <div id={id} className="password-help">
      {password && (
        <div className="strength" aria-live="polite">
          <div className="strength__track" role="meter" aria-label="Password strength" aria-valuemin={0} aria-valuemax={100} aria-valuenow={score} aria-valuetext={level.label}>
            <div className={`strength__bar strength__bar--${level.tone}`} style={{ width: `${score}%` }} />
          </div>
          <span className={`strength__label strength__label--${level.tone}`}>{level.label}</span>
        </div>
      )}
      <ul className="hints">
        {hints.map((h) => (
          <li key={h.label} className={h.met ? 'hint hint--met' : 'hint'}>
            <span aria-hidden="true">{h.met ? '✓' : '○'}</span> {h.label}
            <span className="visually-hidden">{h.met ? ' (met)' : ' (not met)'}</span>
          </li>
        ))}
      </ul>
    </div>
  );
}
