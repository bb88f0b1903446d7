// Wire shapes of the environments API: environments, their connections, repositories and query
// catalog; shared by the tRPC router, the REST adapter (via the OpenAPI document) and the SPA.
import { z } from 'zod';
import { isoDate } from './dates';
import { excludeSchemasSchema, includeSchemasSchema } from './schema-filters';
import {
  connectionStringSchema,
  idSchema,
  INT32_MAX,
  isPlainLine,
  jsonNumber,
  labelSchema,
  nameSchema,
  repoSchema,
  roleSchema,
  slugSchema,
  sqlText,
} from './validation';

const id = idSchema;

/** REST path parameters arrive percent-encoded (the adapter does not decode them); decoding is a no-op for tRPC callers. */
export function pathParam<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => {
    if (typeof value !== 'string' || !value.includes('%')) return value;
    try {
      return decodeURIComponent(value);
    } catch {
      return value;
    }
  }, schema);
}

export const idOutput = z.object({ id: z.string() });

export const environmentSummary = z.object({ id: z.string(), name: z.string(), slug: z.string(), createdAt: isoDate });
export type EnvironmentSummary = z.infer<typeof environmentSummary>;

export const connectionSummary = z.object({
  id: z.string(),
  label: z.string(),
  role: roleSchema,
  createdAt: isoDate,
  maskedConnectionString: z.string().meta({ description: 'The connection string with its password replaced by ****' }),
  includeSchemas: z.array(z.string()).meta({ description: 'Glob patterns of the schemas read through this connection; empty: every schema' }),
  excludeSchemas: z.array(z.string()).meta({ description: 'Glob patterns of schemas never read through this connection (wins over include)' }),
});
export type ConnectionSummary = z.infer<typeof connectionSummary>;
export const repoLink = z.object({ id: z.string(), repo: z.string(), createdAt: isoDate });

/** Shortest interval between two history readings of one environment. */
export const MIN_READING_INTERVAL_SECONDS = 5;

/** An environment's own interval between readings: null follows the server's SNAPSHOT_INTERVAL_SECONDS, 0 turns readings off. */
export const readingIntervalSchema = z
  .number()
  .int()
  .min(0)
  .max(86_400)
  .refine((n) => n === 0 || n >= MIN_READING_INTERVAL_SECONDS, `Must be 0 (off) or ${MIN_READING_INTERVAL_SECONDS} to 86400 seconds`)
  .nullable()
  .meta({ description: "Seconds between production history readings; null for the server's default, 0 for off" });

export const environmentDetail = environmentSummary.extend({
  snapshotIntervalSeconds: readingIntervalSchema,
  effectiveSnapshotIntervalSeconds: z
    .number()
    .int()
    .min(0)
    .meta({ description: "Seconds between readings in effect: the environment's own interval, else the server's SNAPSHOT_INTERVAL_SECONDS; 0 when off" }),
  connections: z.array(connectionSummary),
  repos: z.array(repoLink),
});
export type EnvironmentDetail = z.infer<typeof environmentDetail>;

export const envIdInput = z.object({ id: pathParam(id) });

export const createEnvironmentInput = z.object({ name: nameSchema, slug: slugSchema });
export const updateEnvironmentInput = z.object({
  id: pathParam(id),
  name: nameSchema.optional(),
  slug: slugSchema.optional(),
  snapshotIntervalSeconds: jsonNumber(readingIntervalSchema).optional(),
});
export const updatedEnvironment = environmentSummary.extend({ snapshotIntervalSeconds: readingIntervalSchema });

export const addConnectionInput = z.object({
  id: pathParam(id),
  label: labelSchema,
  role: roleSchema.default('other'),
  // its masked form is stored as text, so it must be text PostgreSQL can hold
  connectionString: connectionStringSchema.refine(isPlainLine, 'Connection string must not contain control characters'),
  includeSchemas: includeSchemasSchema.default([]),
  excludeSchemas: excludeSchemasSchema.default([]),
});
/** A connection's schema filters; a list left out keeps its value. */
export const updateConnectionInput = z.object({
  id: pathParam(id),
  connectionId: pathParam(id),
  includeSchemas: includeSchemasSchema.optional(),
  excludeSchemas: excludeSchemasSchema.optional(),
});
export const removeConnectionInput = z.object({ id: pathParam(id), connectionId: pathParam(id) });

export const linkRepoInput = z.object({ id: pathParam(id), repo: repoSchema });
export const unlinkRepoInput = z.object({ id: pathParam(id), repo: pathParam(repoSchema) });

export const SOURCES = ['ci', 'production', 'manual'] as const;
export const sourceSchema = z.enum(SOURCES);

export const catalogEntry = z.object({
  id: z.string(),
  hash: z.string(),
  formattedQuery: z.string(),
  firstSeenAt: isoDate,
  lastSeenAt: isoDate,
  lastSeenSource: sourceSchema,
  ciRunCount: z.number().int(),
});
export type CatalogEntry = z.infer<typeof catalogEntry>;

export const catalogQuery = catalogEntry.extend({ query: z.string(), createdAt: isoDate, updatedAt: isoDate });
export type CatalogQuery = z.infer<typeof catalogQuery>;

/** A libpg_query fingerprint: 16 hexadecimal digits, stored and compared in lowercase. */
export const hashSchema = z
  .string()
  .trim()
  .regex(/^[0-9A-Fa-f]{16}$/, 'Hash must be a libpg_query fingerprint: 16 hexadecimal digits')
  .toLowerCase();

export const listQueriesInput = z.object({
  id: pathParam(id),
  source: sourceSchema.optional(),
  q: sqlText('Search text', 1000).optional(),
  // A plain GET returns up to 1,000 entries; X-Total-Count tells when there are more to page through.
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  offset: z.coerce.number().int().min(0).max(INT32_MAX).default(0),
});
export const getQueryInput = z.object({ id: pathParam(id), hash: pathParam(hashSchema) });
