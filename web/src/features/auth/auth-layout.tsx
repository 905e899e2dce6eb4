import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { Logo } from '../../components/logo';
import { IconUpload, IconSparkle, IconCube } from '../../components/icons';

const steps = [
  { icon: IconUpload, title: 'Upload photos', text: 'Drag and drop one product photo.' },
  { icon: IconSparkle, title: 'AI processing', text: 'AI generates an interactive 3D model from it.' },
  { icon: IconCube, title: 'Interactive blueprints', text: 'Configure, share by link or embed anywhere.' },
];

/** Two-pane frame for the sign-in, signup and password screens. */
export function AuthLayout({ children, showSteps = false }: { children: ReactNode; showSteps?: boolean }) {
  return (
    <div className="auth-layout">
      <aside className="auth-layout__brand">
        <Link to="/" className="auth-layout__logo" aria-label="Photo3D home">
          <Logo />
        </Link>
        <p className="auth-layout__tagline">Photo → 3D → Link</p>
        <p className="auth-layout__lead">Turn one product photo into an interactive 3D model you can share by link or embed.</p>
        {showSteps && (
          <ol className="auth-steps">
            {steps.map(({ icon: Icon, title, text }) => (
              <li key={title} className="auth-steps__item">
                <span className="auth-steps__icon"><Icon /></span>
                <span>
                  <strong>{title}</strong>
                  <span className="auth-steps__text">{text}</span>
                </span>
              </li>
            ))}
          </ol>
        )}
      </aside>
      <main className="auth-layout__main">
        <div className="auth-card">{children}</div>
      </main>
    </div>
  );
}
