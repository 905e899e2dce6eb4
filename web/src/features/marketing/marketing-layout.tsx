import { useEffect, useState } from 'react';
import { Link, NavLink, Outlet, useLocation } from 'react-router';
import { IconClose, IconMenu } from '../../components/icons';
import { Logo } from '../../components/logo';
import { marketingLinks } from './marketing-rules';

const links = marketingLinks();

/** Public pages: top bar with Home, Demo, Blog (once it has posts) and Log In; footer on every page but home. */
export default function MarketingLayout() {
  const { pathname } = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const isHome = pathname === '/';

  useEffect(() => setMenuOpen(false), [pathname]);
  useEffect(() => {
    if (!menuOpen) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setMenuOpen(false);
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [menuOpen]);

  return (
    <div className={isHome ? 'marketing marketing--home' : 'marketing'}>
      <a className="skip-link" href="#marketing-main">Skip to content</a>
      <header className="site-header">
        <Link to="/" className="site-header__logo" aria-label="Photo3D home">
          <Logo />
        </Link>
        <nav className="site-nav" aria-label="Main">
          <ul className={menuOpen ? 'site-nav__list site-nav__list--open' : 'site-nav__list'} id="site-nav-list">
            {links.map((l) => (
              <li key={l.to}>
                <NavLink to={l.to} end={l.end} className={({ isActive }) => (isActive ? 'site-nav__link site-nav__link--active' : 'site-nav__link')}>
                  {l.label}
                </NavLink>
              </li>
            ))}
            <li className="site-nav__cta-mobile">
              <Link to="/login" state={{ from: '/my-home' }} className="btn btn--primary btn--block">
                Log In
              </Link>
            </li>
          </ul>
        </nav>
        <Link to="/login" state={{ from: '/my-home' }} className="btn btn--primary site-header__login">
          Log In
        </Link>
        <button
          type="button"
          className="icon-btn site-header__toggle"
          aria-label={menuOpen ? 'Close menu' : 'Open menu'}
          aria-expanded={menuOpen}
          aria-controls="site-nav-list"
          onClick={() => setMenuOpen((o) => !o)}
        >
          {menuOpen ? <IconClose /> : <IconMenu />}
        </button>
      </header>
      <main id="marketing-main" className="marketing__main">
        <Outlet />
      </main>
      {!isHome && <SiteFooter />}
    </div>
  );
}

/** Footer with links. (The newsletter field is gone: no server takes sign-ups for it — issue 29 item 15.) */
export function SiteFooter({ fullScreen = false }: { fullScreen?: boolean }) {
  return (
    <footer className={fullScreen ? 'site-footer site-footer--full' : 'site-footer'}>
      <div className="site-footer__grid">
        <div>
          <Logo />
          <p className="muted">Photo → 3D → Link. One product photo becomes an interactive 3D model you can share anywhere.</p>
        </div>
        <nav aria-label="Footer">
          <ul className="site-footer__links">
            <li><Link to="/">Home</Link></li>
            <li><Link to="/demo">Demo</Link></li>
            {links.some((l) => l.to === '/blog') && <li><Link to="/blog">Blog</Link></li>}
            <li><Link to="/signup">Create account</Link></li>
          </ul>
        </nav>
      </div>
      <p className="site-footer__legal">© {new Date().getFullYear()} Photo3D</p>
    </footer>
  );
}
