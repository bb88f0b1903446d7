// Wire shapes of the environments API (spec sections 2.1-2.4, 4.2), shared by the tRPC router,
// the REST adapter (via the OpenAPI document) and the SPA.
import { z } from 'zod';
import { connectionStringSchema, labelSchema, nameSchema, repoSchema, roleSchema, slugSchema } from './validation';

const isoDate = z.string().meta({ description: 'ISO 8601 timestamp (UTC)', example: '2026-11-22T10:00:00.000Z' });
const id = z.string().min(1).max(100);

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
});
export const repoLink = z.object({ id: z.string(), repo: z.string(), createdAt: isoDate });

export const environmentDetail = environmentSummary.extend({
  connections: z.array(connectionSummary),
  repos: z.array(repoLink),
});
export type EnvironmentDetail = z.infer<typeof environmentDetail>;

export const envIdInput = z.object({ id: pathParam(id) });

export const createEnvironmentInput = z.object({ name: nameSchema, slug: slugSchema });
export const updateEnvironmentInput = z.object({ id: pathParam(id), name: nameSchema.optional(), slug: slugSchema.optional() });

export const addConnectionInput = z.object({
  id: pathParam(id),
  label: labelSchema,
  role: roleSchema.default('other'),
  connectionString: connectionStringSchema,
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

export const hashSchema = z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'Hash may contain only letters, digits, _ and -');

export const listQueriesInput = z.object({
  id: pathParam(id),
  source: sourceSchema.optional(),
  q: z.string().max(1000).optional(),
  // A plain GET returns up to 1,000 entries; X-Total-Count tells when there are more to page through.
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  offset: z.coerce.number().int().min(0).default(0),
});
export const getQueryInput = z.object({ id: pathParam(id), hash: pathParam(hashSchema) });
