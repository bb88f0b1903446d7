// The web server: REST at /api, tRPC at /trpc, the SPA's static files at /.
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { timingSafeEqual, createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { appRouter } from './routers/root';
import { createContext, type Services } from './trpc';
import { createRestRouter, sendError } from './rest';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Bearer-token check for /api and /trpc when API_TOKEN is set; the API reference stays readable. */
function requireToken(token: string | undefined): RequestHandler {
  return (req, res, next) => {
    if (!token) return next();
    if (req.method === 'GET' && /^\/(openapi\.json|docs)(\/|$)/.test(req.path)) return next();
    const header = req.get('authorization') ?? '';
    const match = /^Bearer\s+(.+)$/i.exec(header);
    // compare digests so the comparison takes the same time whatever the length
    if (match && timingSafeEqual(digest(match[1]!.trim()), digest(token))) return next();
    res.setHeader('WWW-Authenticate', 'Bearer');
    sendError(res, 401, 'unauthorized', 'Missing or wrong bearer token (Authorization: Bearer <API_TOKEN>)');
  };
}

export const clientDist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'client');

export function createApp(services: Services, options: { clientDir?: string } = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  const auth = requireToken(services.config.apiToken);
  app.use('/api', auth, createRestRouter(services));
  app.use(
    '/trpc',
    auth,
    createExpressMiddleware({
      router: appRouter,
      createContext: () => createContext(services),
      maxBodySize: services.config.maxBodyBytes,
      onError: ({ error, path: procedure }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[trpc] ${procedure ?? '?'} failed:`, error.cause ?? error);
      },
    }),
  );

  const clientDir = options.clientDir ?? clientDist;
  if (existsSync(path.join(clientDir, 'index.html'))) {
    app.use(express.static(clientDir, { index: false, maxAge: '1h' }));
    // client-side routes: any other GET that wants HTML gets the SPA
    app.get(/^\/(?!api\/|trpc\/).*/, (req, res, next) => {
      if (!req.accepts('html')) return next();
      res.sendFile(path.join(clientDir, 'index.html'), { maxAge: 0 });
    });
  }

  app.use((_req, res) => sendError(res, 404, 'not_found', 'Not found'));
  const lastResort: ErrorRequestHandler = (err, _req, res, _next) => {
    console.error('[http] unhandled:', err);
    if (res.headersSent) return res.end();
    sendError(res, 500, 'internal_error', 'Internal server error');
  };
  app.use(lastResort);
  return app;
}
