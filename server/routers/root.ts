import { router } from '../trpc';
import { analysisRouter } from './analysis';
import { catalogRouter } from './catalog';
import { ciRouter } from './ci';
import { connectionsRouter } from './connections';
import { environmentsRouter } from './environments';
import { policyRouter } from './policy';
import { reposRouter } from './repos';

export const appRouter = router({
  env: environmentsRouter,
  connections: connectionsRouter,
  repos: reposRouter,
  queries: catalogRouter,
  analysis: analysisRouter,
  ci: ciRouter,
  policy: policyRouter,
});

/** The type the SPA and internal tools import for typed calls. */
export type AppRouter = typeof appRouter;
