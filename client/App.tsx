import { NavLink, Route, Routes, useLocation } from 'react-router-dom';
import { lazy, Suspense, useEffect } from 'react';
import { Loading } from './components/States';
import { OnboardingPage } from './pages/OnboardingPage';
import { EnvironmentsPage } from './pages/EnvironmentsPage';
import { NotFoundPage } from './pages/NotFoundPage';

// The first pages a user sees load with the app; the others when first opened.
const SyncResultPage = lazy(() => import('./pages/SyncResultPage').then((m) => ({ default: m.SyncResultPage })));
const EnvironmentPage = lazy(() => import('./pages/EnvironmentPage').then((m) => ({ default: m.EnvironmentPage })));
const QueryPage = lazy(() => import('./pages/QueryPage').then((m) => ({ default: m.QueryPage })));
const CiRunsPage = lazy(() => import('./pages/CiRunsPage').then((m) => ({ default: m.CiRunsPage })));
const CiRunPage = lazy(() => import('./pages/CiRunPage').then((m) => ({ default: m.CiRunPage })));

export function AppRoutes() {
  return (
    <Suspense fallback={<Loading />}>
      <AppRouteTable />
    </Suspense>
  );
}

function AppRouteTable() {
  return (
    <Routes>
      <Route path="/" element={<OnboardingPage />} />
      <Route path="/sync" element={<SyncResultPage />} />
      <Route path="/environments" element={<EnvironmentsPage />} />
      <Route path="/environments/:id" element={<EnvironmentPage />} />
      <Route path="/environments/:id/queries/:hash" element={<QueryPage />} />
      <Route path="/ci" element={<CiRunsPage />} />
      <Route path="/ci/:id" element={<CiRunPage />} />
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

/** Moves focus to the page's main region on navigation, so keyboard and screen-reader users start at the top of the new page. */
function useFocusOnNavigate() {
  const { pathname } = useLocation();
  useEffect(() => {
    document.getElementById('main')?.focus({ preventScroll: true });
    window.scrollTo?.(0, 0);
  }, [pathname]);
}

export function App() {
  useFocusOnNavigate();
  const { pathname } = useLocation();
  const analyzerActive = pathname === '/' || pathname === '/sync';
  return (
    <div className="app">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="app-header">
        <NavLink to="/" className="brand">
          <span className="brand-mark" aria-hidden="true">
            ◆
          </span>
          querytrail
        </NavLink>
        <nav aria-label="Main">
          <ul className="nav-list">
            <li>
              <NavLink to="/" className={() => (analyzerActive ? 'active' : undefined)} aria-current={analyzerActive ? 'page' : undefined}>
                Analyzer
              </NavLink>
            </li>
            <li>
              <NavLink to="/environments">Environments</NavLink>
            </li>
            <li>
              <NavLink to="/ci">CI runs</NavLink>
            </li>
          </ul>
        </nav>
      </header>
      <main id="main" tabIndex={-1} className="app-main">
        <AppRoutes />
      </main>
    </div>
  );
}
