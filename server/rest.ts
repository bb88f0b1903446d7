// REST on the paths docs/api.md and /api/docs document: the OpenAPI adapter (trpc-to-openapi) over the same tRPC
// procedures.
// Two gaps of the adapter are closed here: it has no per-route success status (procedures declare
// meta.successStatus, applied to responses and to the OpenAPI document), and its error body is not
// ours (rewritten into { error: { code, message, issues } }). Routing is decided here, on the path
// as sent: the adapter would re-parse it with `new URL()`, which resolves dot segments, so
// DELETE /env/{id}/repos/%2e%2e would reach DELETE /env/{id}. Each path parameter is matched as the
// one literal segment it was sent as, decoded once, refused when it is a dot segment or holds a
// control character, then handed to the adapter re-encoded in a form no URL parser reinterprets.
// The input schemas decode it once more (shared/environments.ts pathParam), back to the literal.
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';
import { createOpenApiExpressMiddleware, generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './routers/root';
import type { Services } from './services-type';
import { createContext } from './trpc';
import type { Context } from './context';
import { apiCode } from './errors';
import { logUnexpectedError } from './error-log';
import { decodeSegment } from './request-path';
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../shared/validation';
import { clientErrorAnswer, errorBody, errorBodySchema, invalidInputMessage, sendError, type ErrorCode, type Issue } from '../shared/errors';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

type ProcedureMeta = { successStatus?: number; openapi?: { method: string; path: string } };

function proceduresWithMeta(): Map<string, ProcedureMeta> {
  const out = new Map<string, ProcedureMeta>();
  for (const [path, procedure] of Object.entries(appRouter._def.procedures)) {
    out.set(path, (procedure as unknown as { _def: { meta?: ProcedureMeta } })._def.meta ?? {});
  }
  return out;
}

interface RestRoute {
  method: string;
  /** The OpenAPI path split on /, e.g. ['env', '{id}', 'repos', '{repo}']. */
  segments: string[];
}

function restRoutes(): RestRoute[] {
  const routes: RestRoute[] = [];
  for (const meta of proceduresWithMeta().values()) {
    if (meta.openapi) routes.push({ method: meta.openapi.method.toUpperCase(), segments: meta.openapi.path.split('/').slice(1) });
  }
  return routes;
}

type RouteMatch = { url: string } | { issues: Issue[] } | undefined;

/**
 * Finds the route a raw path (relative to /api, with its query) names, literal segments compared
 * exactly, and returns the URL to hand to the adapter: the same route, each parameter re-encoded
 * with encodeURIComponent. Undefined when no route matches.
 */
function matchRestRoute(routes: RestRoute[], method: string, url: string): RouteMatch {
  const queryAt = url.indexOf('?');
  const rawPath = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = rawPath.slice(1).split('/');
  if (segments.length > 1 && segments.at(-1) === '') segments.pop(); // one trailing slash is tolerated
  const route = routes.find(
    (r) => r.method === method && r.segments.length === segments.length && r.segments.every((s, i) => s.startsWith('{') || s === segments[i]),
  );
  if (!route) return undefined;
  const issues: Issue[] = [];
  const canonical = route.segments.map((s, i) => {
    if (!s.startsWith('{')) return s;
    const name = s.slice(1, -1);
    const check = decodeSegment(segments[i]!, { slash: true });
    if (check.ok) return encodeURIComponent(check.value);
    issues.push({ path: name, message: `Path parameter ${check.message}` });
    return '';
  });
  if (issues.length > 0) return { issues };
  return { url: `/${canonical.join('/')}${queryAt === -1 ? '' : url.slice(queryAt)}` };
}

// Every error response of the document: the one error body, as shared/errors.ts defines it.
const { $schema: _dialect, ...ERROR_BODY_JSON_SCHEMA } = z.toJSONSchema(errorBodySchema);

export function openApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'querytrail environments API',
    version: '1.0.0',
    description: 'Environments group database connections and CI repositories; CI runs fill a per-environment query catalog.',
    baseUrl,
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description:
          "In team mode: a personal access token (qtp_...), a CI token (qtc_...), a CI job's ID token, or API_TOKEN. The SPA signs in with a session cookie instead.",
      },
    },
  });
  for (const meta of proceduresWithMeta().values()) {
    if (!meta.openapi) continue;
    const operation = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'get'];
    if (!operation?.responses) continue;
    if (meta.successStatus && meta.successStatus !== 200) {
      const ok = operation.responses['200'];
      delete operation.responses['200'];
      operation.responses[String(meta.successStatus)] = meta.successStatus === 204 ? { description: 'Done; no body' } : ok;
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) >= 400 && response && typeof response === 'object' && 'content' in response) {
        (response as { content: unknown }).content = { 'application/json': { schema: ERROR_BODY_JSON_SCHEMA } };
      }
    }
  }
  return doc;
}

/** Rewrites the adapter's error bodies into the API's one error shape, for this response only. */
function rewriteErrors(res: Response) {
  const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (res.statusCode >= 400 && typeof chunk === 'string') {
      try {
        const body = JSON.parse(chunk) as {
          message?: string;
          code?: TRPC_ERROR_CODE_KEY;
          data?: { apiCode?: ErrorCode; issues?: Issue[] };
        };
        const issues = body.data?.issues;
        const message =
          body.message === 'Input validation failed' && issues
            ? invalidInputMessage(issues)
            : res.statusCode >= 500 && body.data?.apiCode !== 'upstream_unavailable' // a 502 names the upstream failure
              ? 'Internal server error'
              : (body.message ?? 'Error');
        const code = body.data?.apiCode ?? (body.code ? apiCode(body.code) : 'internal_error');
        const rewritten = JSON.stringify(errorBody(code, message, issues));
        res.setHeader('Content-Length', Buffer.byteLength(rewritten));
        return end(rewritten, ...rest);
      } catch {
        // not JSON: leave as is
      }
    }
    if (res.statusCode === 204) return end();
    return end(chunk, ...rest);
  }) as Response['end'];
}

/** The swagger-ui-dist files the reference page loads: served from /api/docs/assets/, readable without the token. */
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js'] as const;

// Served at /api/docs/ (the trailing slash is enforced), so its links are relative to that folder.
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>querytrail API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '../openapi.json', dom_id: '#swagger-ui' });</script>
</body></html>`;

export function createRestRouter(services: Services, callerOf: (req: Request, res: Response) => Parameters<typeof createContext>[1]) {
  // literal segments compare exactly, as the token exemptions in app.ts do
  const rest = express.Router({ caseSensitive: true });
  const metas = proceduresWithMeta();
  const routes = restRoutes();

  // Bodies are parsed here (gzip and deflate inflated, size capped) so the adapter sees req.body.
  // Nesting deeper than any input is refused unparsed: the adapter serialises the body again, recursively.
  rest.use(
    express.json({
      limit: services.config.maxBodyBytes,
      type: ['application/json', 'application/*+json'],
      strict: false,
      verify: (_req, _res, body, charset) => {
        const json = charset === 'utf-8' ? body : new TextDecoder(charset).decode(body);
        if (jsonNestsDeeperThan(json, MAX_JSON_DEPTH)) {
          throw Object.assign(new Error(`Request body is nested more than ${MAX_JSON_DEPTH} levels deep`), { status: 400, type: 'entity.too.deep' });
        }
      },
    }),
  );
  rest.use((req, _res, next) => {
    // An empty POST (e.g. curl -X POST .../sync-production) is an empty object, not a 415.
    if ((req.method === 'POST' || req.method === 'PATCH') && !req.headers['content-type'] && !Number(req.headers['content-length'] ?? 0)) {
      req.headers['content-type'] = 'application/json';
      req.body = {};
    }
    next();
  });

  // The router never changes while the process runs: build the document once per base URL.
  const documents = new Map<string, OpenAPIObject>();
  rest.get('/openapi.json', (req: Request, res: Response) => {
    const baseUrl = `${req.protocol}://${req.get('host')}${req.baseUrl}`;
    if (!documents.has(baseUrl) && documents.size < 16) documents.set(baseUrl, openApiDocument(baseUrl));
    res.json(documents.get(baseUrl) ?? openApiDocument(baseUrl));
  });
  const require = createRequire(import.meta.url);
  const swaggerDir = require('swagger-ui-dist').getAbsoluteFSPath() as string;
  rest.get(['/docs', '/docs/'], (req, res) => {
    if (!req.originalUrl.split('?')[0]!.endsWith('/')) return res.redirect(301, `${req.baseUrl}/docs/`);
    res.type('html').send(DOCS_PAGE);
  });
  // exactly the files DOCS_PAGE loads, not the whole swagger-ui-dist folder
  for (const file of DOCS_ASSETS) {
    rest.get(`/docs/assets/${file}`, (_req, res) => res.sendFile(path.join(swaggerDir, file), { maxAge: '1h' }));
  }

  const handler = createOpenApiExpressMiddleware({
    router: appRouter,
    createContext: ({ req, res }) => createContext(services, callerOf(req, res)),
    responseMeta: ({ ctx, paths, errors }) => {
      const context = ctx as Context | undefined;
      const headers = context?.response.headers ?? {};
      if (errors.length > 0) return { headers };
      const declared = paths?.[0] ? metas.get(paths[0])?.successStatus : undefined;
      return { status: context?.response.status ?? declared ?? 200, headers };
    },
    onError: ({ error, path: procedure }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') logUnexpectedError(`api ${procedure ?? '?'}`, error);
    },
  });
  const dispatch: RequestHandler = (req, res) => {
    const match = matchRestRoute(routes, req.method, req.url);
    if (!match) return sendError(res, { status: 404, code: 'not_found', message: 'Not found' });
    if ('issues' in match) {
      return sendError(res, { status: 400, code: 'validation_failed', message: invalidInputMessage(match.issues), issues: match.issues });
    }
    req.url = match.url;
    rewriteErrors(res);
    return handler(req, res);
  };
  rest.use(dispatch);

  const bodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
    if ((err as { type?: string }).type === 'entity.too.deep')
      return sendError(res, { status: 400, code: 'validation_failed', message: (err as Error).message });
    const answer = clientErrorAnswer(err, services.config.maxBodyBytes);
    if (answer) return sendError(res, answer);
    next(err);
  };
  rest.use(bodyErrors);
  return rest;
}
