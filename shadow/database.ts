// A database in the shadow server that plans like production without holding its data: the
// snapshot's schema rebuilt without its code, as the database's planner role (access.ts), never
// the superuser, on a schema made inert (ddl.ts), one statement at a time (session.ts); then
// production's settings. What follows is other files' work: endpoint rows (endpoint-rows.ts),
// statistics (statistics.ts), relation files at production's length (relation-files.ts), and
// EXPLAIN with chosen indexes (explain.ts).
// Our own catalog queries name pg_catalog explicitly: the session's search_path is production's,
// and a production table called pg_class must not stand in for the system catalog.
import pg from 'pg';
import type { SnapshotDdl, SnapshotIndex, Snapshot } from '../snapshot/types.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { ShadowSession } from './session.js';
import { planShadowDdlInTurns, dropCode } from './ddl.js';
import { ADMIN_SCHEMA, createShadowAccess, plannerRoleOf } from './access.js';
import type { ShadowDatabase, ShadowServer } from './types.js';

const ident = pg.escapeIdentifier;

/**
 * Creates a database and its planner role, rebuilds the snapshot's schema without its code as
 * that role and applies production's planner settings in the role's session.
 */
export async function createShadowDatabase(
  server: ShadowServer,
  snapshot: Snapshot,
  name: string,
  locale?: { collate: string; ctype: string },
  statementTimeoutMs = 60_000,
): Promise<ShadowDatabase> {
  await loadParser();
  const ddl = await planShadowDdlInTurns(snapshot.ddl, [ADMIN_SCHEMA]);
  const access = await createShadowAccess(server, name, ddl, locale);
  const session = await ShadowSession.connect(server.connection(name, plannerRoleOf(name)), statementTimeoutMs);
  try {
    await session.query(`SET check_function_bodies = off`);
    await session.query(`SET client_min_messages = warning`);
    const errors = await runInRounds(
      session,
      ddl.statements.map((d) => d.sql),
    );
    await dropCode(session);
    await nameIndexParts(session, snapshot.indexes);
    await applySettings(session, snapshot);
    return {
      session,
      name,
      ddlErrors: errors,
      notCopied: [...ddl.skipped, ...access.warnings],
      async close() {
        await session.end();
      },
    };
  } catch (e) {
    await session.end();
    throw e;
  }
}

/**
 * Runs statements in rounds until a round makes no progress: they depend on each other in ways
 * catalogs do not order for us (views on functions on types). Returns those that still failed.
 */
async function runInRounds(session: ShadowSession, statements: string[]): Promise<{ sql: string; error: string }[]> {
  let pending = statements;
  let errors: { sql: string; error: string }[] = [];
  for (let round = 0; round < 6 && pending.length; round++) {
    errors = [];
    for (const sql of pending) {
      try {
        await session.query(sql);
      } catch (e) {
        errors.push({ sql, error: (e as Error).message });
      }
    }
    if (errors.length === pending.length) break;
    pending = errors.map((e) => e.sql);
  }
  return errors;
}

/** Partition parts of an index get names PostgreSQL chose; give them production's names so statistics and plans line up. */
async function nameIndexParts(session: ShadowSession, indexes: SnapshotIndex[]): Promise<void> {
  for (const idx of indexes.filter((i) => i.parent)) {
    const row = await session.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_catalog.pg_inherits h JOIN pg_catalog.pg_class c ON c.oid = h.inhrelid JOIN pg_catalog.pg_index i ON i.indexrelid = c.oid
       WHERE h.inhparent = pg_catalog.to_regclass($1) AND i.indrelid = pg_catalog.to_regclass($2)`,
      [`${ident(idx.schema)}.${ident(idx.parent!)}`, `${ident(idx.schema)}.${ident(idx.table)}`],
    );
    const current = row.rows[0]?.name;
    if (current && current !== idx.name) {
      await session.query(`ALTER INDEX ${ident(idx.schema)}.${ident(current)} RENAME TO ${ident(idx.name)}`).catch(() => undefined);
    }
  }
}

/**
 * Adds more of the snapshot's DDL to a database built from part of it (a kept database whose next
 * queries need relations it does not have, scope.ts), as createShadowDatabase runs it: the same
 * filter, rounds and sweep. Undefined when the entries need what only the superuser creates
 * (a schema or extension the database lacks): the caller builds a new database instead. Must run
 * while the tables are at their built length (a foreign key or attached partition is validated
 * by reading them). Returns what could not be run, and the index parts named.
 */
export async function extendShadowDatabase(
  db: ShadowDatabase,
  snapshot: Snapshot,
  entries: SnapshotDdl[],
): Promise<{ ddlErrors: { sql: string; error: string }[]; notCopied: string[] } | undefined> {
  await loadParser();
  const ddl = await planShadowDdlInTurns(entries, [ADMIN_SCHEMA]);
  if (ddl.schemas.length || ddl.extensions.length) return undefined;
  const ddlErrors = await runInRounds(
    db.session,
    ddl.statements.map((d) => d.sql),
  );
  await dropCode(db.session);
  const tables = new Set(entries.filter((d) => d.kind === 'table').map((d) => d.name));
  await nameIndexParts(
    db.session,
    snapshot.indexes.filter((i) => tables.has(`${ident(i.schema)}.${ident(i.table)}`) || tables.has(`${quoteName(i.schema)}.${quoteName(i.table)}`)),
  );
  return { ddlErrors, notCopied: ddl.skipped };
}

/** A name as quote_ident prints it (the snapshot's DDL names): quoted only when it must be. */
const quoteName = (name: string) => (/^[a-z_][a-z0-9_$]*$/.test(name) ? name : ident(name));

/**
 * A new session, logged in as the planner role, on a shadow database built earlier by
 * createShadowDatabase (kept-shadows.ts): the same session settings, nothing rebuilt.
 */
export async function reopenShadowDatabase(
  server: ShadowServer,
  snapshot: Snapshot,
  built: Pick<ShadowDatabase, 'name' | 'ddlErrors' | 'notCopied'>,
  statementTimeoutMs = 60_000,
): Promise<ShadowDatabase> {
  const session = await ShadowSession.connect(server.connection(built.name, plannerRoleOf(built.name)), statementTimeoutMs);
  try {
    await session.query(`SET check_function_bodies = off`);
    await session.query(`SET client_min_messages = warning`);
    await applySettings(session, snapshot);
  } catch (e) {
    await session.end();
    throw e;
  }
  return { ...built, session, close: () => session.end() };
}

async function applySettings(session: ShadowSession, snapshot: Snapshot): Promise<void> {
  for (const [k, v] of Object.entries(snapshot.settings)) {
    await session.query(`SELECT pg_catalog.set_config($1, $2, false)`, [k, v]).catch(() => undefined);
  }
  await session.query(`SELECT pg_catalog.set_config('search_path', $1, false)`, [snapshot.searchPath]).catch(() => undefined);
}
