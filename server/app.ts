// The web server: REST at /api, tRPC at /trpc, MCP at /mcp, sign-in at /auth, the SPA's static files at /.
// Before any route, in this order: the Host check (421), authentication (401 for bad credentials,
// 403 for a cross-site request riding a session cookie), then for /api, /trpc and /mcp a caller at all
// (401), then the path check (400). Credentials are checked before the path so that every way of
// spelling an API path is refused without them, whether or not it is well formed. What each
// procedure needs beyond a caller is the access table's (server/auth/access.ts).
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import { appRouter } from './routers/root';
import { createContext } from './trpc';
import type { Services } from './services-type';
import { authenticate, type Authenticated } from './auth/authenticate';
import { createSignInRouter } from './auth/sign-in-routes';
import { createMcpRouter } from './mcp/route';
import { createRestRouter, DOCS_ASSETS } from './rest';
import { sendError } from '../shared/errors';
import { hostGuard } from './host-check';
import { checkRequestPath, pathOf } from './request-path';
import { logUnexpectedError } from './error-log';
import { clientErrorAnswer } from '../shared/errors';

/** What GET may read without the token, compared with the path exactly as sent: the API reference. */
const PUBLIC_API_PATHS: ReadonlySet<string> = new Set([
  '/api/openapi.json',
  '/api/docs',
  '/api/docs/',
  ...DOCS_ASSETS.map((file) => `/api/docs/assets/${file}`),
]);

// Express mounts /api, /trpc and /mcp case-insensitively; anything that starts like them is treated as them.
const API_PREFIX = /^\/(api|trpc|mcp)\b/i;

/** True when the request needs no token: the exact reference paths, or a well-formed path outside /api and /trpc (the SPA). */
function isPublicRequest(method: string, target: string): boolean {
  const requestPath = pathOf(target);
  if (requestPath === undefined) return false;
  if ((method === 'GET' || method === 'HEAD') && PUBLIC_API_PATHS.has(requestPath)) return true;
  return !API_PREFIX.test(requestPath) && checkRequestPath(target) === undefined;
}

/** Everything but the SPA, sign-in and the API reference needs a caller (a session or a token). */
const requireCaller: RequestHandler = (req, res, next) => {
  if ((res.locals as Authenticated).principal || isPublicRequest(req.method, req.originalUrl)) return next();
  res.setHeader('WWW-Authenticate', 'Bearer');
  sendError(res, {
    status: 401,
    code: 'unauthorized',
    message: 'Sign in, or send Authorization: Bearer <token> (a personal access token, a CI token or API_TOKEN)',
  });
};

/** The caller of one request, for the tRPC context. */
const callerOf = (req: express.Request, res: express.Response) => ({
  principal: (res.locals as Authenticated).principal,
  sourceAddress: req.socket.remoteAddress,
});

/** Refuses paths the layers below could read differently (dot segments, backslashes, control characters...). */
const wellFormedPath: RequestHandler = (req, res, next) => {
  const issue = checkRequestPath(req.originalUrl);
  if (!issue) return next();
  sendError(res, { status: 400, code: 'validation_failed', message: `Invalid path: ${issue.message}`, issues: [issue] });
};

/** tRPC reads only the last path segment as the procedure name: /trpc/<anything>/env.list would still call env.list. */
const oneProcedureSegment: RequestHandler = (req, res, next) => {
  if (/^\/[^/]+$/.test(req.path)) return next();
  sendError(res, { status: 404, code: 'not_found', message: 'Not found' });
};

/**
 * Idle keep-alive connections stay open a minute (Node's default is 5 s). A client reusing one
 * sends its next request without waiting; had the server closed it meanwhile, that request is
 * lost (ECONNRESET). With 5 s, a busy moment of the server was enough for that to happen to the
 * SPA's polls, the CLI and a load balancer (whose own idle timeout, commonly 60 s, must be the
 * shorter one).
 */
export function keepIdleConnections(server: import('node:http').Server) {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
}

export const clientDist = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'client');

export function createApp(services: Services, options: { clientDir?: string } = {}) {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', false);

  app.use(hostGuard(services.config));
  // the SPA's files need no caller: every other request has its credentials read, however it is spelled
  const readsCredentials = (req: express.Request) => /^\/auth\//i.test(req.path) || !isPublicRequest(req.method, req.originalUrl);
  app.use(
    authenticate(services.store, services.config, readsCredentials, (res, status, code, message) =>
      sendError(res, { status: status, code: code, message: message }),
    ),
  );
  app.use(requireCaller);
  app.use(wellFormedPath);
  app.use('/auth', createSignInRouter(services));
  app.use('/api', createRestRouter(services, callerOf));
  app.use('/mcp', createMcpRouter(services, callerOf));
  app.use(
    '/trpc',
    oneProcedureSegment,
    createExpressMiddleware({
      router: appRouter,
      createContext: ({ req, res }) => createContext(services, callerOf(req, res)),
      maxBodySize: services.config.maxBodyBytes,
      onError: ({ error, path: procedure }) => {
        if (error.code === 'INTERNAL_SERVER_ERROR') logUnexpectedError(`trpc ${procedure ?? '?'}`, error);
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

  app.use((_req, res) => sendError(res, { status: 404, code: 'not_found', message: 'Not found' }));
  const lastResort: ErrorRequestHandler = (err, _req, res, _next) => {
    if (res.headersSent) return res.end();
    // a client error raised by a middleware (express.static, a body parser) keeps its 4xx status
    const answer = clientErrorAnswer(err);
    if (answer) return sendError(res, { status: answer.status, code: answer.code, message: answer.message });
    logUnexpectedError('http', err);
    sendError(res, { status: 500, code: 'internal_error', message: 'Internal server error' });
  };
  app.use(lastResort);
  return app;
}
