// The analyzer's HTTP face: GET /health, POST /postgres (the whole sync, streamed), POST
// /postgres/summary and /postgres/objects (the same sync as the SPA's schema browser shows it: a
// summary, then pages of objects) and POST /postgres/analyze, behind the host/origin guard, with
// querytrail's one error body ({ error: { code, message, issues? } }) for everything that goes wrong.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { objectsRequestSchema, syncRequestSchema } from '../shared/analyzer-schema';
import { analyzeRequestSchema } from '../shared/analysis';
import { clientErrorAnswer, invalidInputMessage, issuesOf, sendError } from '../shared/errors';
import { loadParser } from '../shared/sql-fingerprint';
import { messageOf, type SessionLimits } from '../gateway/index';
import { accessGuard, accessOptions, type AccessConfigInput } from './cors';
import { AnalyzerHttpError } from './errors';
import { DEFAULT_SYNC_SETTINGS, streamSync, type SyncSettings } from './sync';
import { listObjects, syncSummary } from './browse';
import { streamSink } from './json-stream';
import { analyzeDatabase } from './analyze';

interface AnalyzerOptions extends AccessConfigInput {
  /** Overrides of connect/statement/lock timeouts and pool size (tests shorten them). */
  limits?: Partial<SessionLimits>;
  sampleConcurrency?: number;
  maxSampledTables?: number;
  /** Overrides of how the sync reads and holds a large database (tests make chunks small). */
  chunkWeight?: number;
  chunkConcurrency?: number;
  spoolMemoryChars?: number;
  /** Where a line per request goes; never given a connection string. Default: console.log. */
  log?: (line: string) => void;
}

// A request is a connection string and a few options, or at most a few thousand statements.
const MAX_BODY_BYTES = 64 * 1024;

type Log = (line: string) => void;

/** The body as `schema` reads it, or undefined once a 415 or 400 validation_failed was sent. */
function parseBody<S extends z.ZodType>(schema: S, req: Request, res: Response): z.output<S> | undefined {
  if (!req.is('application/json')) {
    sendError(res, { status: 415, code: 'unsupported_media_type', message: 'Send the request body as JSON with Content-Type: application/json.' });
    return undefined;
  }
  const parsed = schema.safeParse(req.body);
  if (!parsed.success) {
    const issues = issuesOf(parsed.error);
    sendError(res, { status: 400, code: 'validation_failed', message: invalidInputMessage(issues), issues });
    return undefined;
  }
  return parsed.data;
}

/** Answers a failure that happened before any of the answer was sent; logs it. */
function sendFailure(name: string, log: Log, res: Response, error: unknown, started: number): void {
  if (error instanceof AnalyzerHttpError) {
    log(`${name} refused: ${error.code} after ${Date.now() - started} ms`);
    sendError(res, error);
    return;
  }
  log(`${name} failed: ${messageOf(error)}`);
  sendError(res, { status: 500, code: 'internal_error', message: messageOf(error) });
}

/**
 * A POST route over JSON: a body of another type answers 415, one the schema refuses 400
 * validation_failed naming each field, an AnalyzerHttpError its own status and code, anything else
 * 500. Each outcome writes one log line (`summary` words a success); none holds the request.
 */
function jsonRoute<S extends z.ZodType, R>(
  name: string,
  log: Log,
  schema: S,
  run: (input: z.output<S>) => Promise<R>,
  summary: (result: R, ms: number) => string,
): RequestHandler {
  return async (req, res) => {
    const input = parseBody(schema, req, res);
    if (input === undefined) return;
    const started = Date.now();
    try {
      const result = await run(input);
      log(`${name} ${summary(result, Date.now() - started)}`);
      res.json(result);
    } catch (error) {
      sendFailure(name, log, res, error, started);
    }
  };
}

/**
 * POST /postgres: the whole RemoteSyncResponse, written as it is read from the spools. Nothing is
 * sent before the sync has read every part, so a failure to connect still answers its own status.
 */
function syncRoute(log: Log, settings: SyncSettings): RequestHandler {
  return async (req, res) => {
    const request = parseBody(syncRequestSchema, req, res);
    if (request === undefined) return;
    const started = Date.now();
    const sink = streamSink(res);
    const answer = {
      write: (text: string | Buffer) => {
        if (!res.headersSent) res.status(200).type('application/json; charset=utf-8');
        return sink.write(text);
      },
    };
    try {
      const outcome = await streamSync(request, settings, answer, { cancelled: sink.closed });
      res.end();
      const spilled = outcome.spilledChars ? `, ${(outcome.spilledChars / 1e6).toFixed(1)} MB via temp files` : '';
      log(`sync ${outcome.database}: ${Date.now() - started} ms${outcome.failed.length ? `, failed parts: ${outcome.failed.join(', ')}` : ''}${spilled}`);
    } catch (error) {
      if (!res.headersSent) {
        sendFailure('sync', log, res, error, started);
        return;
      }
      // part of the answer is out: the client sees it cut short
      log(`sync failed while answering: ${messageOf(error)}`);
      res.destroy();
    }
  };
}

function createAnalyzerApp(options: AnalyzerOptions = {}): express.Express {
  const log = options.log ?? ((line: string) => console.log(line));
  const settings: SyncSettings = {
    limits: { ...DEFAULT_SYNC_SETTINGS.limits, ...options.limits },
    sampleConcurrency: options.sampleConcurrency ?? DEFAULT_SYNC_SETTINGS.sampleConcurrency,
    maxSampledTables: options.maxSampledTables ?? DEFAULT_SYNC_SETTINGS.maxSampledTables,
    chunkWeight: options.chunkWeight ?? DEFAULT_SYNC_SETTINGS.chunkWeight,
    chunkConcurrency: options.chunkConcurrency ?? DEFAULT_SYNC_SETTINGS.chunkConcurrency,
    spoolMemoryChars: options.spoolMemoryChars ?? DEFAULT_SYNC_SETTINGS.spoolMemoryChars,
  };
  // Load the SQL parser (WASM) now rather than during the first sync; a failure shows up there.
  loadParser().catch(() => {});
  const app = express();
  app.disable('x-powered-by');
  app.use(accessGuard(accessOptions(options)));
  app.use(express.json({ limit: MAX_BODY_BYTES }));

  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });

  app.post('/postgres', syncRoute(log, settings));

  // The SPA's schema browser: a summary first, then the objects it shows, a page at a time.
  app.post(
    '/postgres/summary',
    jsonRoute(
      'summary',
      log,
      syncRequestSchema,
      (request) => syncSummary(request, settings),
      (response, ms) => {
        const database = response.meta.type === 'ok' ? response.meta.value.database : '';
        const schemas =
          response.summary.type === 'ok'
            ? `${response.summary.value.schemas.length} schemas, ${response.summary.value.groups.length} groups`
            : 'summary failed';
        return `${database}: ${schemas}, ${ms} ms`;
      },
    ),
  );
  app.post(
    '/postgres/objects',
    jsonRoute(
      'objects',
      log,
      objectsRequestSchema,
      (request) => listObjects(request, settings),
      (response, ms) => `${response.items.length} of ${response.total} objects from ${response.offset}, ${ms} ms`,
    ),
  );

  // The advisor over this one database: its own statistics plan its own queries.
  app.post(
    '/postgres/analyze',
    jsonRoute(
      'analyze',
      log,
      analyzeRequestSchema,
      (request) => analyzeDatabase(request, settings.limits),
      (response) => `${response.database}: ${response.queries.length} queries, ${response.indexes.length} indexes, ${response.durationMs} ms`,
    ),
  );

  app.use((_req, res) => {
    sendError(res, {
      status: 404,
      code: 'not_found',
      message: 'Not found. The analyzer answers GET /health, POST /postgres, POST /postgres/summary, POST /postgres/objects and POST /postgres/analyze.',
    });
  });

  // A body the JSON parser refused keeps its 4xx; anything else is ours and answered without a stack.
  const onError: ErrorRequestHandler = (error, _req, res, _next) => {
    const answer = clientErrorAnswer(error, MAX_BODY_BYTES);
    if (answer) {
      sendError(res, answer);
      return;
    }
    log(`request failed: ${messageOf(error)}`);
    sendError(res, { status: 500, code: 'internal_error', message: 'The analyzer failed to handle the request.' });
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
