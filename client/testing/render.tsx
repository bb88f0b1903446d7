// Renders the app's routes for component tests, with the real providers pointed at a real server.
import { configure, render } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { App, AppRoutes } from '../App';
import { AppProviders } from '../providers';
import type { TestSession } from './server';

// These pages wait on a real server that shares two cores with the rest of the suite: findBy and
// waitFor get the time a loaded machine needs, not testing-library's one-second default.
configure({ asyncUtilTimeout: 10_000 });

/** Shows the current path, so tests can assert where a click led. */
function LocationProbe() {
  const { pathname } = useLocation();
  return <output data-testid="location">{pathname}</output>;
}

/**
 * A fetch that does what a browser on the server's own pages does for the session: sends its
 * cookie, and on changes the page's Origin (the SPA adds X-CSRF-Token itself).
 */
export function sessionFetch(session: TestSession, origin: string): typeof fetch {
  return (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('cookie', session.cookie);
    if (init.method && init.method !== 'GET') headers.set('origin', origin);
    return fetch(input, { ...init, headers });
  };
}

/**
 * `session`: a person signed in on a team server (startApiServer({ team: true }).signIn); without
 * it, no cookie is sent. `header`: the whole app, its header (navigation, user menu) included.
 */
export function renderApp(path: string, { trpcUrl, session, header = false }: { trpcUrl: string; session?: TestSession; header?: boolean }) {
  const origin = new URL(trpcUrl).origin;
  // the app scrolls to the top on navigation; jsdom has no layout, and says so on every call
  if (header) window.scrollTo = () => undefined;
  return render(
    <AppProviders trpcUrl={trpcUrl} fetch={session ? sessionFetch(session, origin) : undefined}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="*"
            element={
              <>
                <LocationProbe />
                {header ? <App /> : <AppRoutes />}
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
}
