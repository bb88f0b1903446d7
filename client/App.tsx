import { Navigate, NavLink, Route, Routes, useLocation, useSearchParams } from 'react-router-dom';
import { lazy, Suspense, useEffect } from 'react';
import { SessionGate } from './components/auth/SessionGate';
import { UserMenu } from './components/auth/UserMenu';
import { Loading } from './components/States';
import { useMeQuery, useMeState } from './hooks/useMe';
import { safeReturnPath } from './lib/session';
import { OnboardingPage } from './pages/OnboardingPage';
import { EnvironmentsPage } from './pages/EnvironmentsPage';
import { NotFoundPage } from './pages/NotFoundPage';

// The first pages a user sees load with the app; the others when first opened.
const SyncResultPage = lazy(() => import('./pages/SyncResultPage').then((m) => ({ default: m.SyncResultPage })));
const EnvironmentPage = lazy(() => import('./pages/EnvironmentPage').then((m) => ({ default: m.EnvironmentPage })));
const QueryPage = lazy(() => import('./pages/QueryPage').then((m) => ({ default: m.QueryPage })));
const CiRunsPage = lazy(() => import('./pages/CiRunsPage').then((m) => ({ default: m.CiRunsPage })));
const CiRunPage = lazy(() => import('./pages/CiRunPage').then((m) => ({ default: m.CiRunPage })));
const TokensPage = lazy(() => import('./pages/TokensPage').then((m) => ({ default: m.TokensPage })));
const AuditPage = lazy(() => import('./pages/AuditPage').then((m) => ({ default: m.AuditPage })));

export function AppRoutes() {
  return (
    <SessionGate>
      <Suspense fallback={<Loading />}>
        <AppRouteTable />
      </Suspense>
    </SessionGate>
  );
}

/** /sign-in once signed in (or on a single-user server): on to the page sign-in was for. Not before it is known: signed out, this is the sign-in page. */
function SignedIn() {
  const [params] = useSearchParams();
  if (useMeState().loading) return <Loading />;
  return <Navigate to={safeReturnPath(params.get('returnTo'))} replace />;
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
      <Route path="/tokens" element={<TokensPage />} />
      <Route path="/audit" element={<AuditPage />} />
      <Route path="/sign-in" element={<SignedIn />} />
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
  // signed out, the header offers nothing but the sign-in below it
  const signedOut = useMeQuery().data === null;
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
        {signedOut ? null : (
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
        )}
        <UserMenu />
      </header>
      <main id="main" tabIndex={-1} className="app-main">
        <AppRoutes />
      </main>
    </div>
  );
}
