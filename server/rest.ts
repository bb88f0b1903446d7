// REST on the spec's paths: the OpenAPI adapter (trpc-to-openapi) over the same tRPC procedures.
// Two gaps of the adapter are closed here: it has no per-route success status (procedures declare
// meta.successStatus, applied to responses and to the OpenAPI document), and its error body is not
// ours (rewritten into { error: { code, message, issues } }). Path parameters are percent-decoded
// by the input schemas (shared/environments.ts pathParam).
import express, { type ErrorRequestHandler, type Request, type Response } from 'express';
import { createRequire } from 'node:module';
import { createOpenApiExpressMiddleware, generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import { appRouter } from './routers/root';
import { createContext, type Context, type Services } from './trpc';
import { apiCode, type ApiErrorCode } from './errors';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';

type ProcedureMeta = { successStatus?: number; openapi?: { method: string; path: string } };

function proceduresWithMeta(): Map<string, ProcedureMeta> {
  const out = new Map<string, ProcedureMeta>();
  for (const [path, procedure] of Object.entries(appRouter._def.procedures)) {
    out.set(path, ((procedure as unknown as { _def: { meta?: ProcedureMeta } })._def.meta ?? {}));
  }
  return out;
}

export function sendError(res: Response, status: number, code: ApiErrorCode, message: string, issues?: { path: string; message: string }[]) {
  res.status(status).json({ error: { code, message, ...(issues ? { issues } : {}) } });
}

export function openApiDocument(baseUrl: string): OpenAPIObject {
  const doc = generateOpenApiDocument(appRouter, {
    title: 'querytrail environments API',
    version: '1.0.0',
    description: 'Environments group database connections and CI repositories; CI runs fill a per-environment query catalog.',
    baseUrl,
    securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Required when the server runs with API_TOKEN' } },
  });
  const errorSchema = {
    type: 'object',
    required: ['error'],
    properties: {
      error: {
        type: 'object',
        required: ['code', 'message'],
        properties: {
          code: { type: 'string' },
          message: { type: 'string' },
          issues: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
        },
      },
    },
  };
  for (const meta of proceduresWithMeta().values()) {
    if (!meta.openapi) continue;
    const operation = doc.paths?.[meta.openapi.path]?.[meta.openapi.method.toLowerCase() as 'get'];
    if (!operation?.responses) continue;
    if (meta.successStatus && meta.successStatus !== 200) {
      const ok = operation.responses['200'];
      delete operation.responses['200'];
      operation.responses[String(meta.successStatus)] =
        meta.successStatus === 204 ? { description: 'Done; no body' } : ok;
    }
    for (const [status, response] of Object.entries(operation.responses)) {
      if (Number(status) >= 400 && response && typeof response === 'object' && 'content' in response) {
        (response as { content: unknown }).content = { 'application/json': { schema: errorSchema } };
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
          data?: { apiCode?: ApiErrorCode; issues?: { path: string; message: string }[] };
        };
        const issues = body.data?.issues;
        const message =
          body.message === 'Input validation failed' && issues
            ? `Invalid input: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`
            : res.statusCode >= 500 && body.data?.apiCode !== 'upstream_unavailable' // a 502 names the upstream failure
              ? 'Internal server error'
              : (body.message ?? 'Error');
        const code = body.data?.apiCode ?? (body.code ? apiCode(body.code) : 'internal_error');
        const rewritten = JSON.stringify({ error: { code, message, ...(issues ? { issues } : {}) } });
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

// Served at /api/docs/ (the trailing slash is enforced), so its links are relative to that folder.
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>querytrail API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="assets/swagger-ui.css"></head>
<body><div id="swagger-ui"></div>
<script src="assets/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '../openapi.json', dom_id: '#swagger-ui' });</script>
</body></html>`;

export function createRestRouter(services: Services) {
  const rest = express.Router();
  const metas = proceduresWithMeta();

  // Bodies are parsed here (gzip and deflate inflated, size capped) so the adapter sees req.body.
  rest.use(express.json({ limit: services.config.maxBodyBytes, type: ['application/json', 'application/*+json'], strict: false }));
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
  rest.use('/docs/assets', express.static(swaggerDir, { index: false }));

  const handler = createOpenApiExpressMiddleware({
    router: appRouter,
    createContext: () => createContext(services),
    responseMeta: ({ ctx, paths, errors }) => {
      const context = ctx as Context | undefined;
      const headers = context?.response.headers ?? {};
      if (errors.length > 0) return { headers };
      const declared = paths?.[0] ? metas.get(paths[0])?.successStatus : undefined;
      return { status: context?.response.status ?? declared ?? 200, headers };
    },
    onError: ({ error, path }) => {
      if (error.code === 'INTERNAL_SERVER_ERROR') console.error(`[api] ${path ?? '?'} failed:`, error.cause ?? error);
    },
  });
  rest.use((req, res) => {
    rewriteErrors(res);
    return handler(req, res);
  });

  const bodyErrors: ErrorRequestHandler = (err, _req, res, next) => {
    const type = (err as { type?: string }).type;
    if (type === 'entity.parse.failed') return sendError(res, 400, 'malformed_json', 'Request body is not valid JSON');
    if (type === 'entity.too.large')
      return sendError(res, 413, 'payload_too_large', `Request body is larger than ${services.config.maxBodyBytes} bytes`);
    if (type === 'encoding.unsupported') return sendError(res, 415, 'unsupported_media_type', 'Unsupported Content-Encoding (use gzip, deflate or none)');
    if (type === 'charset.unsupported') return sendError(res, 415, 'unsupported_media_type', 'Unsupported charset');
    if (err && typeof (err as { status?: number }).status === 'number' && (err as { status: number }).status < 500) {
      return sendError(res, (err as { status: number }).status, 'validation_failed', 'Bad request');
    }
    next(err);
  };
  rest.use(bodyErrors);
  return rest;
}
