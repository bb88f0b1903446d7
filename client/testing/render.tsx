// Renders the app's routes for component tests, with the real providers pointed at a real server.
import { render } from '@testing-library/react';
import { MemoryRouter, Route, Routes, useLocation } from 'react-router-dom';
import { AppRoutes } from '../App';
import { AppProviders } from '../providers';

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
