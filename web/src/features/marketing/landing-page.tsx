import { useRef } from 'react';
import { Link } from 'react-router';
import { IconChart, IconCube, IconLink, IconSparkle } from '../../components/icons';
import { useGetPublicConfigQuery } from '../../entities/auth/auth-api';
import { ModelViewer } from '../../components/model-viewer/model-viewer';
import { SiteFooter } from './marketing-layout';
import { useSectionStepper } from './use-section-stepper';

/** The hero's live model: one of the samples bundled with the app (web/public/demo). */
export const HERO_MODEL = '/demo/table/model.glb';

const waitlistUrl = (import.meta.env.VITE_WAITLIST_URL ?? '').trim();

/** / — four full-screen sections with one-section-at-a-time stepping on wide screens. */
export default function LandingPage() {
  const root = useRef<HTMLDivElement>(null);
  useSectionStepper(root);
  // "Join the waitlist" only where a real waitlist form is configured; otherwise the
  // button says what it does: open sign-up, or sign-up with an invite code.
  const inviteOnly = useGetPublicConfigQuery().data?.signupMode === 'invite';
  return (
    <div className="landing" ref={root}>
      <section className="landing__section landing__hero" data-step-section aria-labelledby="hero-title">
        <div className="landing__inner landing__hero-grid">
          <div className="landing__hero-copy">
            <p className="eyebrow">Photo → 3D → Link</p>
            <h1 id="hero-title" className="landing__title">Turn one product photo into an interactive 3D model</h1>
            <p className="landing__lead">Upload a single photo. Our AI builds a tappable 3D view you can share by link, embed on your store, or open in AR.</p>
            <div className="btn-row">
              {waitlistUrl ? (
                <a className="btn btn--primary btn--lg" href={waitlistUrl} target="_blank" rel="noopener noreferrer">
                  Join the waitlist
                </a>
              ) : (
                <Link className="btn btn--primary btn--lg" to="/signup">
                  {inviteOnly ? 'Sign up with an invite' : 'Create an account'}
                </Link>
              )}
              <Link className="btn btn--secondary btn--lg" to="/demo">
                See the demo
              </Link>
            </div>
            {/* What is free, said before sign-up, not at the wizard's last step (issue 50, P2). */}
            <p className="muted landing__pricing-hint">{PRICING_HINT}</p>
          </div>
          {/* A live model from the bundled samples (web/public/demo): what a shopper gets, to spin right here. */}
          <figure className="landing__hero-model" data-testid="hero-model">
            <ModelViewer src={HERO_MODEL} alt="A sample product in interactive 3D: drag to turn it" ar={false} shadowIntensity={0.8} />
            <figcaption className="muted">A sample model, live: drag to turn it.</figcaption>
          </figure>
        </div>
      </section>
      <section className="landing__section landing__features" data-step-section aria-labelledby="features-title">
        <div className="landing__inner">
          <h2 id="features-title" className="landing__heading">AI-powered 3D, ready to embed</h2>
          <div className="feature-grid">
            <article className="feature-card">
              <IconSparkle size={28} />
              <h3>AI image-to-3D conversion</h3>
              <p>One photo in; a textured, part-aware 3D model out. Progress you see is real.</p>
            </article>
            <article className="feature-card">
              <IconCube size={28} />
              <h3>Marketing-ready shoppable galleries</h3>
              <p>Variants, clickable hotspots and purchase links turn a model into a storefront.</p>
            </article>
            <article className="feature-card">
              <IconLink size={28} />
              <h3>Share and embed anywhere</h3>
              <p>Publish as a share link, an iframe embed or a QR code, with AR on phones.</p>
            </article>
          </div>
        </div>
      </section>
      <section className="landing__section landing__analytics" data-step-section aria-labelledby="analytics-title">
        <div className="landing__inner">
          <h2 id="analytics-title" className="landing__heading">Product analytics that show what shoppers do</h2>
          <ul className="benefit-list">
            <li><IconChart size={24} /><span><strong>Higher engagement</strong> — see which products shoppers spin, zoom and tap.</span></li>
            <li><IconChart size={24} /><span><strong>Faster go-live</strong> — from photo to published model without a 3D studio.</span></li>
            <li><IconChart size={24} /><span><strong>Happier customers</strong> — shoppers understand the product before they buy.</span></li>
          </ul>
        </div>
      </section>
      <section className="landing__section landing__end" data-step-section aria-label="Footer">
        <SiteFooter fullScreen />
      </section>
    </div>
  );
}

/** The pricing hint under the hero's buttons (issue 50, P2). */
export const PRICING_HINT = 'The Free plan includes 5 AI credits to build and preview 3D models. Sharing needs Pro or the 7-day free trial (no card).';
