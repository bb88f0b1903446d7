// The analyzer's HTTP face: GET /health and POST /postgres, behind the host/origin guard, with one
// error body ({ error: { code, message } }) for everything that goes wrong.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { syncRequestSchema, type AnalyzerError, type AnalyzerErrorCode } from '../shared/analyzer-schema';
import { loadParser } from '../shared/sql-fingerprint';
import { accessGuard, accessOptions, type AccessConfigInput } from './cors';
import type { SessionLimits } from '../gateway/index';
import { AnalyzerHttpError, messageOf } from './errors';
import { DEFAULT_SYNC_SETTINGS, syncDatabase, type SyncSettings } from './sync';
import { analyzeDatabase } from './analyze';
import { analyzeRequestSchema } from '../shared/analysis';

export interface AnalyzerOptions extends AccessConfigInput {
  /** Overrides of connect/statement/lock timeouts and pool size (tests shorten them). */
  limits?: Partial<SessionLimits>;
  sampleConcurrency?: number;
  maxSampledTables?: number;
  /** Where a line per request goes; never given a connection string. Default: console.log. */
  log?: (line: string) => void;
}

function sendError(res: express.Response, status: number, code: AnalyzerErrorCode, message: string): void {
  const body: AnalyzerError = { error: { code, message } };
  res.status(status).json(body);
}

export function createAnalyzerApp(options: AnalyzerOptions = {}): express.Express {
  const log = options.log ?? ((line: string) => console.log(line));
  const settings: SyncSettings = {
    limits: { ...DEFAULT_SYNC_SETTINGS.limits, ...options.limits },
    sampleConcurrency: options.sampleConcurrency ?? DEFAULT_SYNC_SETTINGS.sampleConcurrency,
    maxSampledTables: options.maxSampledTables ?? DEFAULT_SYNC_SETTINGS.maxSampledTables,
  };
  // Load the SQL parser (WASM) now rather than during the first sync; a failure shows up there.
  loadParser().catch(() => {});
  const app = express();
  app.disable('x-powered-by');
  app.use(accessGuard(accessOptions(options)));
  app.use(express.json({ limit: '64kb' }));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.post('/postgres', async (req, res) => {
    if (!req.is('application/json')) {
      sendError(res, 415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
      return;
    }
    const parsed = syncRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      const message = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
      sendError(res, 400, 'invalid_request', message);
      return;
    }
    const started = Date.now();
    try {
      const response = await syncDatabase(parsed.data, settings);
      const meta = response.meta.type === 'ok' ? response.meta.value : undefined;
      const failed = (['schema', 'queries', 'disabledIndexes'] as const).filter((part) => response[part].type === 'error');
      log(`sync ${meta?.database ?? ''}: ${Date.now() - started} ms${failed.length ? `, failed parts: ${failed.join(', ')}` : ''}`);
      res.json(response);
    } catch (error) {
      if (error instanceof AnalyzerHttpError) {
        log(`sync refused: ${error.code} after ${Date.now() - started} ms`);
        sendError(res, error.status, error.code, error.message);
        return;
      }
      log(`sync failed: ${messageOf(error)}`);
      sendError(res, 500, 'internal_error', messageOf(error));
    }
  });

  // The advisor over this one database: its own statistics plan its own queries (issue 6).
  app.post('/postgres/analyze', async (req, res) => {
    if (!req.is('application/json')) {
      sendError(res, 415, 'unsupported_media_type', 'Send the request body as JSON with Content-Type: application/json.');
      return;
    }
    const parsed = analyzeRequestSchema.safeParse(req.body);
    if (!parsed.success) {
      const message = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
      sendError(res, 400, 'invalid_request', message);
      return;
    }
    try {
      const response = await analyzeDatabase(parsed.data, settings.limits);
      log(`analyze ${response.database}: ${response.queries.length} queries, ${response.indexes.length} indexes, ${response.durationMs} ms`);
      res.json(response);
    } catch (error) {
      if (error instanceof AnalyzerHttpError) {
        sendError(res, error.status, error.code, error.message);
        return;
      }
      log(`analyze failed: ${messageOf(error)}`);
      sendError(res, 500, 'internal_error', messageOf(error));
    }
  });

  app.use((_req, res) => {
    sendError(res, 404, 'not_found', 'Not found. The analyzer answers GET /health, POST /postgres and POST /postgres/analyze.');
  });

  // body-parser marks its errors with a type; anything else is ours and answered without a stack.
  const onError: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, res, _next) => {
    if (error.type === 'entity.parse.failed') sendError(res, 400, 'invalid_json', 'The request body is not valid JSON.');
    else if (error.type === 'entity.too.large') sendError(res, 413, 'payload_too_large', 'The request body is too large.');
    else if (error.status && error.status >= 400 && error.status < 500) sendError(res, error.status, 'invalid_request', messageOf(error));
    else {
      log(`request failed: ${messageOf(error)}`);
      sendError(res, 500, 'internal_error', 'The analyzer failed to handle the request.');
    }
  };
  app.use(onError);
  return app;
}

export interface StartAnalyzerOptions extends AnalyzerOptions {
  /** Default: env ANALYZER_PORT, else 2345. 0 picks a free port. */
  port?: number;
  /** Default: env ANALYZER_HOST, else 127.0.0.1 (the Docker image sets 0.0.0.0). */
  host?: string;
}

export interface RunningAnalyzer {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Starts the analyzer on its own port; `npm start` runs it beside the web server. */
export async function startAnalyzer(options: StartAnalyzerOptions = {}): Promise<RunningAnalyzer> {
  const env = options.env ?? process.env;
  const port = options.port ?? (env.ANALYZER_PORT ? Number(env.ANALYZER_PORT) : 2345);
  const host = options.host ?? env.ANALYZER_HOST ?? '127.0.0.1';
  const app = createAnalyzerApp({ ...options, listenHost: host });
  const server = await new Promise<Server>((resolve, reject) => {
    const listening = app.listen(port, host, (error?: Error) => (error ? reject(error) : resolve(listening)));
  });
  const { port: actualPort } = server.address() as AddressInfo;
  const urlHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${actualPort}`,
    server,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
