// Renders the app's routes for component tests, with the real providers pointed at a real server.
import { configure, render } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { AppRoutes } from '../App';
import { AppProviders } from '../providers';

// These pages wait on a real server that shares two cores with the rest of the suite: findBy and
// waitFor get the time a loaded machine needs, not testing-library's one-second default.
configure({ asyncUtilTimeout: 10_000 });

/** Shows the current path, so tests can assert where a click led. */
function LocationProbe() {
  const { pathname } = useLocation();
  return <output data-testid="location">{pathname}</output>;
}

export function renderApp(path: string, { trpcUrl }: { trpcUrl: string }) {
  return render(
    <AppProviders trpcUrl={trpcUrl}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route
            path="*"
            element={
              <>
                <LocationProbe />
                <AppRoutes />
              </>
            }
          />
        </Routes>
      </MemoryRouter>
    </AppProviders>,
  );
}
