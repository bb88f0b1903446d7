// The analyzer is a separate origin on the user's machine: the browser calls it with fetch and
// reads its answers through the shared zod schemas, so a changed contract fails loudly here.
// A sync for this page is a summary (POST /postgres/summary); the schema browser then asks for the
// objects it shows, a page at a time (POST /postgres/objects). The whole RemoteSyncResponse of
// POST /postgres, tens of megabytes on a large database, is never read here.
import type { z } from 'zod';
import {
  healthSchema,
  objectsResponseSchema,
  syncSummaryResponseSchema,
  type DatabaseSchema,
  type ObjectsResponse,
  type RemoteSyncResponse,
  type Result,
  type SchemaSummary,
} from '../../shared/analyzer-schema';
import { describeIssues, errorBodySchema, issuesOf } from '../../shared/errors';
import type { SchemaFilters } from '../../shared/schema-filters';

export const DEFAULT_ANALYZER_URL = 'http://localhost:2345';
export const HEALTH_POLL_MS = 10_000;
export const ANALYZER_URL_STORAGE_KEY = 'querytrail.analyzerUrl';

export class AnalyzerError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'AnalyzerError';
  }
}

/** Trims the endpoint and drops trailing slashes, so "http://host:2345/" and "http://host:2345" agree. */
export function normalizeAnalyzerUrl(url: string): string {
  return url.trim().replace(/\/+$/, '');
}

export function validateAnalyzerUrl(url: string): string | undefined {
  const value = normalizeAnalyzerUrl(url);
  if (!value) return 'Analyzer endpoint must not be empty';
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'Analyzer endpoint must start with http:// or https://';
  } catch {
    return 'Analyzer endpoint must be a URL such as http://localhost:2345';
  }
  return undefined;
}

export async function checkHealth(baseUrl: string, signal?: AbortSignal): Promise<boolean> {
  try {
    const response = await fetch(`${normalizeAnalyzerUrl(baseUrl)}/health`, { signal, cache: 'no-store' });
    if (!response.ok) return false;
    return healthSchema.safeParse(await response.json()).success;
  } catch {
    return false;
  }
}

/** Which objects of the schema browser: one schema, some schemas, all; optionally searched. */
export interface ObjectsScope {
  schema?: string;
  schemas?: string[];
  q?: string;
}

/** Where a summarized sync's objects come from: the analyzer that made it, for the same database. */
export interface AnalyzerBrowse {
  analyzerUrl: string;
  /** The connection string (kept in memory only, like the sync). */
  db: string;
  /** The schema filters the sync was made with: the objects asked for later keep to them. */
  filters: SchemaFilters;
  summary: Result<SchemaSummary>;
}

/**
 * A sync as this page keeps it: RemoteSyncResponse's parts (meta, queries, disabled indexes), with
 * the schema summarized in `browse`; `schema` then holds the schemas, extensions and warnings only,
 * its objects being fetched by the schema browser as it shows them.
 */
export type SyncView = RemoteSyncResponse & { browse?: AnalyzerBrowse };

/** One POST to the analyzer, its answer read through `schema`; every failure is an AnalyzerError. */
async function post<S extends z.ZodType>(base: string, path: string, body: unknown, schema: S, signal?: AbortSignal): Promise<z.output<S>> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
    throw new AnalyzerError(
      `Could not reach the analyzer at ${base}. Is it running, and does it allow this page's origin (${window.location.origin})?`,
      'unreachable',
    );
  }
  let answer: unknown;
  try {
    answer = await response.json();
  } catch {
    throw new AnalyzerError(`The analyzer answered ${response.status} without a JSON body`, 'invalid_response', response.status);
  }
  if (!response.ok) {
    const parsed = errorBodySchema.safeParse(answer);
    if (parsed.success) throw new AnalyzerError(parsed.data.error.message, parsed.data.error.code, response.status);
    throw new AnalyzerError(`The analyzer answered ${response.status}`, 'invalid_response', response.status);
  }
  const parsed = schema.safeParse(answer);
  if (!parsed.success) {
    const first = describeIssues(issuesOf(parsed.error).slice(0, 1));
    throw new AnalyzerError(
      `The analyzer's answer does not match this page's version of the contract (${first}). Update the analyzer or this app.`,
      'invalid_response',
      response.status,
    );
  }
  return parsed.data;
}

const EMPTY_OBJECTS: Omit<DatabaseSchema, 'schemas' | 'extensions' | 'warnings'> = {
  tables: [],
  indexes: [],
  constraints: [],
  functions: [],
  views: [],
  types: { enums: [], domains: [], composites: [] },
  triggers: [],
  sequences: [],
};

/** Only the lists that hold patterns: a request without filters stays a bare `{ db }`. */
function sentFilters({ includeSchemas = [], excludeSchemas = [] }: SchemaFilters): SchemaFilters {
  return { ...(includeSchemas.length ? { includeSchemas } : {}), ...(excludeSchemas.length ? { excludeSchemas } : {}) };
}

/**
 * Syncs a database for this page: its summary (POST /postgres/summary), kept with what the schema
 * browser needs to ask the analyzer for the objects.
 */
export async function syncDatabase(baseUrl: string, db: string, filters: SchemaFilters = {}, signal?: AbortSignal): Promise<SyncView> {
  const base = normalizeAnalyzerUrl(baseUrl);
  const answer = await post(base, '/postgres/summary', { db, ...sentFilters(filters) }, syncSummaryResponseSchema, signal);
  const { summary } = answer;
  return {
    meta: answer.meta,
    schema:
      summary.type === 'ok'
        ? {
            type: 'ok',
            value: {
              schemas: summary.value.schemas.map(({ name, owner, comment }) => ({ name, owner, comment })),
              ...EMPTY_OBJECTS,
              extensions: summary.value.extensions,
              warnings: summary.value.warnings,
            },
          }
        : summary,
    queries: answer.queries,
    disabledIndexes: answer.disabledIndexes,
    browse: { analyzerUrl: base, db, filters, summary },
  };
}

/** One page of the objects of `scope` (POST /postgres/objects). */
export function fetchObjects(browse: AnalyzerBrowse, scope: ObjectsScope, offset: number, limit: number, signal?: AbortSignal): Promise<ObjectsResponse> {
  return post(
    browse.analyzerUrl,
    '/postgres/objects',
    { db: browse.db, ...sentFilters(browse.filters), ...scope, offset, limit },
    objectsResponseSchema,
    signal,
  );
}
