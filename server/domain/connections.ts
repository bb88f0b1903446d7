// Database connections of an environment. The connection string is accepted, encrypted and never
// returned; reads show only its masked form. The production connections are the ones querytrail
// reads: production sync takes their pg_stat_statements, Analyze their planner statistics.
import { and, asc, eq } from 'drizzle-orm';
import type { z } from 'zod';
import type { addConnectionInput } from '../../shared/environments';
import { maskConnectionString } from '../../shared/validation';
import { connections } from '../db/schema';
import type { Db } from '../db/store';
import { conflict, notFound } from '../errors';
import { newId } from '../ids';
import { SecretUnreadableError, type Secrets } from '../secrets';
import { notFoundInEnvironment, requireEnvironment } from './environments';

export async function addConnection(db: Db, secrets: Secrets, input: z.infer<typeof addConnectionInput>): Promise<{ id: string }> {
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
    });
  });
  return { id };
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
  /** Decrypted: pass it to the gateway only, never to a response or a log. */
  connectionString: string;
}

/**
 * The environment's production connections, oldest first (the first is "the" production
 * database where one is needed). 404 for an unknown environment; 409 when it has none, saying
 * what adding one is `for`.
 */
export async function requireProductionConnections(db: Db, secrets: Secrets, environmentId: string, purpose: string): Promise<[ProductionConnection, ...ProductionConnection[]]> {
  const environment = await requireEnvironment(db, environmentId);
  const rows = await db
    .select({ id: connections.id, label: connections.label, sealed: connections.connectionStringEncrypted })
    .from(connections)
    .where(and(eq(connections.environmentId, environmentId), eq(connections.role, 'production')))
    .orderBy(asc(connections.createdAt), asc(connections.id));
  const [first, ...more] = rows.map(({ id, label, sealed }) => ({ id, label, connectionString: openSealed(secrets, label, sealed) }));
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
