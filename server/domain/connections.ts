// Database connections of an environment. The connection string is accepted, encrypted and never
// returned; reads show only its masked form. The production connections are the ones querytrail
// reads: production sync takes their pg_stat_statements, Analyze their planner statistics.
import { and, asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { addConnectionInput, ConnectionSummary, updateConnectionInput } from '../../shared/environments';
import type { SchemaFilters } from '../../shared/schema-filters';
import { maskConnectionString } from '../../shared/validation';
import { connections } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, notFound } from '../errors';
import { newId } from '../ids';
import { SecretUnreadableError, type Secrets } from '../secrets';
import { connectionSummaryColumns, notFoundInEnvironment, requireEnvironment } from './environments';

type AddInput = z.infer<typeof addConnectionInput>;
/** The filters may be left out (the demo, tests): no filters. */
type AddConnection = Omit<AddInput, 'includeSchemas' | 'excludeSchemas'> & Partial<Pick<AddInput, 'includeSchemas' | 'excludeSchemas'>>;

export async function addConnection(db: Db, secrets: Secrets, input: AddConnection): Promise<{ id: string }> {
  const id = newId('conn');
  await db.transaction(async (tx) => {
    await requireEnvironment(tx, input.id);
    await tx.insert(connections).values({
      id,
      environmentId: input.id,
      label: input.label,
      role: input.role,
      connectionStringEncrypted: secrets.encrypt(input.connectionString),
      maskedConnectionString: maskConnectionString(input.connectionString),
      includeSchemas: input.includeSchemas ?? [],
      excludeSchemas: input.excludeSchemas ?? [],
    });
  });
  return { id };
}

/** Changes a connection's schema filters (only the lists given); the connection as listed, never its string. */
export async function updateConnection(db: Db, input: z.infer<typeof updateConnectionInput>): Promise<ConnectionSummary> {
  const changes = {
    ...(input.includeSchemas !== undefined ? { includeSchemas: input.includeSchemas } : {}),
    ...(input.excludeSchemas !== undefined ? { excludeSchemas: input.excludeSchemas } : {}),
  };
  const where = and(eq(connections.id, input.connectionId), eq(connections.environmentId, input.id));
  const columns = connectionSummaryColumns;
  const [row] = Object.keys(changes).length
    ? await db.update(connections).set(changes).where(where).returning(columns)
    : await db.select(columns).from(connections).where(where);
  if (!row) return notFoundInEnvironment(db, input.id, notFound(`Connection ${input.connectionId}`));
  return { ...row, createdAt: row.createdAt.toISOString() };
}

export async function removeConnection(db: Db, environmentId: string, connectionId: string): Promise<void> {
  const deleted = await db
    .delete(connections)
    .where(and(eq(connections.id, connectionId), eq(connections.environmentId, environmentId)))
    .returning({ id: connections.id });
  if (deleted.length === 0) await notFoundInEnvironment(db, environmentId, notFound(`Connection ${connectionId}`));
}

interface ProductionConnection {
  id: string;
  label: string;
  /** Which schemas to read through it (applied in SQL by every reader). */
  schemaFilters: SchemaFilters;
  /** Decrypted: pass it to the gateway only, never to a response or a log. */
  connectionString: string;
}

/** The environment's production connections as stored, their strings still sealed, oldest first. */
export function productionConnectionRows(db: Db, environmentId: string) {
  return db
    .select({
      id: connections.id,
      label: connections.label,
      sealed: connections.connectionStringEncrypted,
      includeSchemas: connections.includeSchemas,
      excludeSchemas: connections.excludeSchemas,
    })
    .from(connections)
    .where(and(eq(connections.environmentId, environmentId), eq(connections.role, 'production')))
    .orderBy(asc(connections.createdAt), asc(connections.id));
}

/**
 * The environment's production connections, oldest first (the first is "the" production
 * database where one is needed). 404 for an unknown environment; 409 when it has none, saying
 * what adding one is `for`.
 */
export async function requireProductionConnections(
  db: Db,
  secrets: Secrets,
  environmentId: string,
  purpose: string,
): Promise<[ProductionConnection, ...ProductionConnection[]]> {
  const environment = await requireEnvironment(db, environmentId);
  const rows = await productionConnectionRows(db, environmentId);
  const [first, ...more] = rows.map(({ id, label, sealed, includeSchemas, excludeSchemas }) => ({
    id,
    label,
    connectionString: openSealed(secrets, label, sealed),
    schemaFilters: { includeSchemas, excludeSchemas },
  }));
  if (!first) {
    throw conflict(`Environment "${environment.name}" has no connection with role production; add one (POST /env/${environmentId}/connections) ${purpose}`);
  }
  return [first, ...more];
}

/** 409 naming the connection when its string was sealed with another key: the user can act on it, the server is fine. */
function openSealed(secrets: Secrets, label: string, sealed: string): string {
  try {
    return secrets.decrypt(sealed);
  } catch (error) {
    if (error instanceof SecretUnreadableError) throw conflict(`Connection "${label}": ${error.message}`);
    throw error;
  }
}
