import { router } from '../trpc';
import { analysisRouter } from './analysis';
import { auditRouter } from './audit';
import { meRouter } from './me';
import { membersRouter } from './members';
import { ciTokensRouter, tokensRouter } from './tokens';
import { catalogRouter } from './catalog';
import { ciRouter } from './ci';
import { connectionsRouter } from './connections';
import { demoRouter } from './demo';
import { environmentsRouter } from './environments';
import { historyRouter } from './history';
import { policyRouter } from './policy';
import { reposRouter } from './repos';
import { webhooksRouter } from './webhooks';

export const appRouter = router({
  env: environmentsRouter,
  connections: connectionsRouter,
  repos: reposRouter,
  queries: catalogRouter,
  history: historyRouter,
  analysis: analysisRouter,
  ci: ciRouter,
  policy: policyRouter,
  demo: demoRouter,
  webhooks: webhooksRouter,
  me: meRouter,
  members: membersRouter,
  tokens: tokensRouter,
  ciTokens: ciTokensRouter,
  audit: auditRouter,
});

/** The type the SPA and internal tools import for typed calls. */
export type AppRouter = typeof appRouter;
