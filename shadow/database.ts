// A database in the shadow server that plans like production without holding its data.
//
// The trap: PostgreSQL's planner does not take a table's size from pg_class alone. It reads the
// physical length of the relation (RelationGetNumberOfBlocks) and scales pg_class's density
// (reltuples / relpages) by it (table_block_relation_estimate_size in PG18; estimate_rel_size
// for indexes, and get_relation_info uses the physical length as an index's page count). A
// schema-only copy therefore plans every table as empty, whatever pg_restore_relation_stats says.
// Measured fix: after restoring the statistics we extend each relation's files to production's
// physical length with ftruncate, which makes sparse files of zero pages: no disk space, no
// writes through the buffer manager, and PostgreSQL treats an all-zero page as a valid empty page.
// Nothing ever reads them, because we only EXPLAIN. Autovacuum is off in the shadow server, since
// it would truncate the empty tail again.
//
// Candidate indexes are built while the tables are still physically empty (building one on an
// extended table reads every zero page: 0.3 s per 160 MB measured) and then marked invalid. An
// EXPLAIN that tries some of them flips indisvalid in a transaction that is always rolled back,
// so every plan sees exactly the indexes it asks for and nothing else.
//
// All of it runs as the database's planner role, never the superuser (shadow-access.ts), on a
// schema whose code was made inert (shadow-schema.ts), one statement at a time (shadow-session.ts).
// Our own catalog queries name pg_catalog explicitly: the session's search_path is production's,
// and a production table called pg_class must not stand in for the catalog.
import { openSync, ftruncateSync, fstatSync, closeSync, constants } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import pg from 'pg';
import type { ShadowServer } from './types.js';
import type { SourceDdl, SourceIndex, SourceSnapshot, SourceRelation } from '../snapshot/types.js';
import { groupBy } from '../shared/collections.js';
import { resizeAsOwner } from './file-resizer.js';
import type { PlanNode } from '../shared/plan.js';
import { loadParser } from '../shared/sql-fingerprint.js';
import { ShadowSession } from './session.js';
import { planShadowDdlInTurns, dropCode } from './ddl.js';
import { ADMIN_SCHEMA, SET_INDEXES_VALID, createShadowAccess, plannerRoleOf } from './access.js';

export interface ShadowDatabase {
  session: ShadowSession;
  name: string;
  /** DDL statements the shadow could not run (unsupported language, missing extension, ...). */
  ddlErrors: { sql: string; error: string }[];
  /** Production objects not copied on purpose (not on an allow-list), and extensions not created. */
  notCopied: string[];
  close(): Promise<void>;
}

const ident = pg.escapeIdentifier;

/**
 * Creates a database and its planner role, rebuilds the snapshot's schema without its code as
 * that role and applies the source's planner settings in the role's session.
 */
export async function createShadowDatabase(
  server: ShadowServer,
  snapshot: SourceSnapshot,
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
    const errors = await runInRounds(session, ddl.statements.map((d) => d.sql));
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

/** Partition parts of an index get names PostgreSQL chose; give them the source's names so statistics and plans line up. */
async function nameIndexParts(session: ShadowSession, indexes: SourceIndex[]): Promise<void> {
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
export async function extendShadowDatabase(db: ShadowDatabase, snapshot: SourceSnapshot, entries: SourceDdl[]): Promise<{ ddlErrors: { sql: string; error: string }[]; notCopied: string[] } | undefined> {
  await loadParser();
  const ddl = await planShadowDdlInTurns(entries, [ADMIN_SCHEMA]);
  if (ddl.schemas.length || ddl.extensions.length) return undefined;
  const ddlErrors = await runInRounds(db.session, ddl.statements.map((d) => d.sql));
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
  snapshot: SourceSnapshot,
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

async function applySettings(session: ShadowSession, snapshot: SourceSnapshot): Promise<void> {
  for (const [k, v] of Object.entries(snapshot.settings)) {
    await session.query(`SELECT pg_catalog.set_config($1, $2, false)`, [k, v]).catch(() => undefined);
  }
  await session.query(`SELECT pg_catalog.set_config('search_path', $1, false)`, [snapshot.searchPath]).catch(() => undefined);
}

interface RelationSize {
  relpages: number;
  reltuples: number;
  relallvisible: number;
}

/** pg_restore_relation_stats for one relation of the shadow (by oid). */
export async function restoreRelationStats(session: ShadowSession, oid: number, stats: RelationSize): Promise<void> {
  await restoreRelationsStats(session, [{ oid, ...stats }]);
}

/** pg_restore_relation_stats for many relations of the shadow (by oid), in one statement. */
export async function restoreRelationsStats(session: ShadowSession, relations: (RelationSize & { oid: number })[]): Promise<void> {
  if (!relations.length) return;
  await session.query(
    `SELECT pg_catalog.pg_restore_relation_stats('schemaname', n.nspname::text, 'relname', c.relname::text, 'relpages', u.relpages, 'reltuples', u.reltuples, 'relallvisible', u.relallvisible)
     FROM ROWS FROM (pg_catalog.unnest($1::oid[]), pg_catalog.unnest($2::int[]), pg_catalog.unnest($3::real[]), pg_catalog.unnest($4::int[])) AS u(oid, relpages, reltuples, relallvisible)
     JOIN pg_catalog.pg_class c ON c.oid = u.oid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace`,
    [relations.map((r) => r.oid), relations.map((r) => Math.round(r.relpages)), relations.map((r) => r.reltuples), relations.map((r) => Math.round(r.relallvisible))],
  );
}

const ATTRIBUTE_TYPES: Record<string, string> = {
  null_frac: 'real',
  avg_width: 'integer',
  n_distinct: 'real',
  most_common_vals: 'text',
  most_common_freqs: 'real[]',
  histogram_bounds: 'text',
  correlation: 'real',
  most_common_elems: 'text',
  most_common_elem_freqs: 'real[]',
  elem_count_histogram: 'real[]',
  range_length_histogram: 'text',
  range_empty_frac: 'real',
  range_bounds_histogram: 'text',
};

/** Restores pg_class sizes and pg_stats of every relation the source has and the shadow knows. */
export async function restoreStatistics(db: ShadowDatabase, snapshot: SourceSnapshot): Promise<{ warnings: string[] }> {
  const { session } = db;
  const warnings: string[] = [];
  for (const r of snapshot.relations) {
    const oid = await oidOf(session, r.schema, r.name);
    if (oid === undefined) continue;
    await restoreRelationStats(session, oid, r).catch((e: Error) => warnings.push(`${r.schema}.${r.name}: ${e.message}`));
  }
  for (const s of snapshot.stats) {
    const args: unknown[] = [s.schema, s.table, s.column, s.inherited];
    const parts: string[] = [];
    for (const [field, value] of Object.entries(s.values)) {
      if (value === null || !ATTRIBUTE_TYPES[field]) continue;
      args.push(value);
      parts.push(`'${field}', $${args.length}::${ATTRIBUTE_TYPES[field]}`);
    }
    // By column name, for an expression index too: pg_stats lists its statistics under the index's
    // name, and the index rebuilt from the same definition names its expression columns alike.
    await session
      .query(`SELECT pg_catalog.pg_restore_attribute_stats('schemaname', $1::text, 'relname', $2::text, 'attname', $3::text, 'inherited', $4::boolean${parts.length ? ', ' + parts.join(', ') : ''})`, args)
      .catch((e: Error) => warnings.push(`${s.schema}.${s.table}.${s.column}: ${e.message}`));
  }
  return { warnings };
}

/** Restores pg_class sizes only: what building an index overwrites of its table (index_update_stats). */
export async function restoreRelationSizes(db: ShadowDatabase, snapshot: SourceSnapshot): Promise<void> {
  const oids = await oidsOf(db.session, snapshot.relations);
  const known = snapshot.relations.flatMap((r, i) => (oids[i] === undefined ? [] : [{ ...r, oid: oids[i]! }]));
  // A relation that failed here was reported when the database was built; the others still get theirs.
  await restoreRelationsStats(db.session, known).catch(async () => {
    for (const r of known) await restoreRelationStats(db.session, r.oid, r).catch(() => undefined);
  });
}

/** The shadow's oid of each relation, in order; undefined for one it does not have. */
async function oidsOf(session: ShadowSession, relations: readonly { schema: string; name: string }[]): Promise<(number | undefined)[]> {
  const r = await session.query<{ oid: number | null }>(
    `SELECT pg_catalog.to_regclass(q)::oid::int AS oid FROM pg_catalog.unnest($1::text[]) WITH ORDINALITY AS u(q, n) ORDER BY n`,
    [relations.map((x) => `${ident(x.schema)}.${ident(x.name)}`)],
  );
  return r.rows.map((row) => row.oid ?? undefined);
}

async function oidOf(session: ShadowSession, schema: string, name: string): Promise<number | undefined> {
  const r = await session.query<{ oid: number | null }>(`SELECT pg_catalog.to_regclass($1)::oid::int AS oid`, [`${ident(schema)}.${ident(name)}`]);
  return r.rows[0]?.oid ?? undefined;
}

export interface StorageInfo {
  dataDir: string;
  blockSize: number;
  segmentBlocks: number;
}

export async function storageInfo(server: ShadowServer, session: ShadowSession): Promise<StorageInfo> {
  const r = await session.query<{ bs: number; seg: number }>(
    `SELECT pg_catalog.current_setting('block_size')::int AS bs, (SELECT setting::int FROM pg_catalog.pg_settings WHERE name = 'segment_size') AS seg`,
  );
  return { dataDir: server.dataDir, blockSize: r.rows[0]!.bs, segmentBlocks: r.rows[0]!.seg };
}

/** A relation's main fork to grow to `blocks` pages: its path under the data directory. */
export interface ExtendJob {
  file: string;
  blocks: number;
}

/** Where a relation's main fork lives, as a path relative to the data directory; only base/<db>/<file> is accepted. */
export async function relationFile(session: ShadowSession, oid: number): Promise<string | undefined> {
  const r = await session.query<{ path: string | null }>(`SELECT pg_catalog.pg_relation_filepath($1::oid) AS path`, [oid]);
  return relationPath(r.rows[0]?.path ?? null);
}

/** pg_relation_filepath's answer when it is base/<db>/<file>, the only form we resize. */
export function relationPath(path: string | null): string | undefined {
  return path && /^base\/\d+\/\d+$/.test(path) ? path : undefined;
}

/**
 * Grows relations' main forks with sparse files, segment by segment as md.c lays them out
 * (relfilenode, relfilenode.1, ... of segment_size each). When we are root the files belong to the
 * shadow's OS user and are grown by `truncate` running as that user: root never opens a path in
 * a directory the shadow's processes can rewrite.
 */
export async function extendFiles(server: ShadowServer, storage: StorageInfo, jobs: ExtendJob[]): Promise<void> {
  const segments: { file: string; bytes: number }[] = [];
  for (const job of jobs) {
    if (!/^base\/\d+\/\d+$/.test(job.file)) throw new Error(`unexpected relation path ${job.file}`);
    let remaining = Math.max(0, Math.round(job.blocks));
    for (let seg = 0; remaining > 0; seg++) {
      const blocks = Math.min(remaining, storage.segmentBlocks);
      segments.push({ file: path.join(storage.dataDir, seg === 0 ? job.file : `${job.file}.${seg}`), bytes: blocks * storage.blockSize });
      remaining -= blocks;
    }
  }
  await resizeFiles(server, segments, 'grow');
}

/**
 * Grows segments to at least, or shrinks them to at most, their sizes. As root the files belong to
 * the shadow's OS user and `truncate` runs as that user (`>N` grow only; `<N` shrink only, `-c`
 * creating nothing), one call per size: root never opens a path in a directory the shadow's
 * processes can rewrite. Shrinking skips a segment that was never created.
 */
async function resizeFiles(server: ShadowServer, segments: { file: string; bytes: number }[], direction: 'grow' | 'shrink'): Promise<void> {
  const grow = direction === 'grow';
  const owner = server.fileOwner;
  if (!owner) {
    for (const { file, bytes } of segments) {
      let fd: number;
      try {
        fd = grow ? openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600) : openSync(file, constants.O_RDWR | constants.O_NOFOLLOW);
      } catch (error) {
        if (grow) throw error;
        continue; // a segment never created
      }
      try {
        const size = fstatSync(fd).size;
        if (grow ? size < bytes : size > bytes) ftruncateSync(fd, bytes);
      } finally {
        closeSync(fd);
      }
    }
    return;
  }
  if (await resizeAsOwner(server, owner, segments, grow)) return;
  // Without the resizer (file-resizer.ts): one shell for many files, sizes and paths as pairs of arguments.
  const truncate = grow ? 'truncate -s "$1" -- "$2"' : 'truncate -c -s "$1" -- "$2"';
  const script = `umask 077 && while [ $# -gt 1 ]; do ${truncate} || exit 1; shift 2; done`;
  for (let i = 0; i < segments.length; i += 250) {
    const pairs = segments.slice(i, i + 250).flatMap(({ file, bytes }) => [`${grow ? '>' : '<'}${bytes}`, file]);
    await run('sh', ['-c', script, 'sh', ...pairs], owner);
  }
}

function run(command: string, args: string[], owner: { uid: number; gid: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { uid: owner.uid, gid: owner.gid, env: { PATH: process.env.PATH }, stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (c: Buffer) => (err += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${command} failed (${code}): ${err.trim()}`))));
  });
}

/** Extends tables and existing indexes to the source's physical sizes; returns what it extended. */
export async function extendRelations(server: ShadowServer, db: ShadowDatabase, relations: SourceRelation[]): Promise<ExtendJob[]> {
  const storage = await storageInfo(server, db.session);
  const jobs: ExtendJob[] = [];
  for (const r of relations) {
    if (!['r', 'm', 'i'].includes(r.kind) || r.blocks <= 0) continue;
    const oid = await oidOf(db.session, r.schema, r.name);
    const file = oid === undefined ? undefined : await relationFile(db.session, oid);
    if (file) jobs.push({ file, blocks: r.blocks });
  }
  await extendFiles(server, storage, jobs);
  return jobs;
}

/** A table's file to give back its built length (`blocks`: the endpoint rows' page) from `extended` pages. */
export interface ShrinkJob extends ExtendJob {
  extended: number;
}

/**
 * The tables' files as they are now, before extendRelations: what shrinkFiles gives them back so
 * that candidates can again be built on physically empty tables (a kept database, kept-shadows.ts).
 */
export async function tableFiles(db: ShadowDatabase, relations: SourceRelation[]): Promise<ShrinkJob[]> {
  const jobs: ShrinkJob[] = [];
  for (const r of relations) {
    if (!['r', 'm'].includes(r.kind) || r.blocks <= 0) continue;
    const oid = await oidOf(db.session, r.schema, r.name);
    const file = oid === undefined ? undefined : await relationFile(db.session, oid);
    if (!file) continue;
    const size = await db.session.query<{ blocks: number }>(
      `SELECT (pg_catalog.pg_relation_size($1::oid) / pg_catalog.current_setting('block_size')::int)::int AS blocks`,
      [oid],
    );
    jobs.push({ file, blocks: size.rows[0]!.blocks, extended: r.blocks });
  }
  return jobs;
}

/**
 * Gives extended tables' files back their built length: segment 0 cut to its first pages, later
 * segments to nothing (kept, as md.c's own truncation keeps them). Must run while no session has
 * the database open: a backend keeps the segments it opened and counts blocks from its last one.
 * Only zero pages go, which nothing ever read or wrote (we only EXPLAIN).
 */
export async function shrinkFiles(server: ShadowServer, storage: StorageInfo, jobs: ShrinkJob[]): Promise<void> {
  const segments: { file: string; bytes: number }[] = [];
  for (const job of jobs) {
    if (!/^base\/\d+\/\d+$/.test(job.file)) throw new Error(`unexpected relation path ${job.file}`);
    const count = Math.max(1, Math.ceil(Math.max(job.extended, job.blocks) / storage.segmentBlocks));
    for (let seg = 0; seg < count; seg++) {
      const blocks = Math.min(Math.max(job.blocks - seg * storage.segmentBlocks, 0), storage.segmentBlocks);
      segments.push({ file: path.join(storage.dataDir, seg === 0 ? job.file : `${job.file}.${seg}`), bytes: blocks * storage.blockSize });
    }
  }
  await resizeFiles(server, segments, 'shrink');
}

/**
 * EXPLAIN (GENERIC_PLAN) with exactly the given candidate indexes valid. Always rolled back, so
 * the flipped flags never outlive the statement; the flip goes through the superuser's function
 * (shadow-access.ts), the EXPLAIN through ShadowSession.explain (one statement, refused otherwise).
 */
export async function explain(session: ShadowSession, sql: string, validIndexOids: number[] = []): Promise<PlanNode> {
  await loadParser(); // the statement gate parses with libpg_query
  // Nothing to flip and nothing to probe: one round trip, in its own implicit transaction.
  if (!validIndexOids.length && session.knows(sql)) return session.explain(sql);
  if (!validIndexOids.every((oid) => Number.isSafeInteger(oid) && oid > 0)) throw new Error(`not index oids: ${validIndexOids.join(', ')}`);
  // indcheckxmin false: the updated pg_index row is new, and a set flag would hide the index.
  // Oids are integers read from the shadow's catalog, so the statement is ours alone.
  if (validIndexOids.length) await session.beginWith(`SELECT ${SET_INDEXES_VALID}('{${validIndexOids.join(',')}}'::pg_catalog.oid[], true)`);
  else await session.query('BEGIN');
  try {
    return await session.explain(sql);
  } finally {
    await session.query('ROLLBACK');
  }
}

/**
 * Stores, per table, a row holding the smallest value of every column the source has a B-tree
 * endpoint for and a row holding the largest (snapshot.endpoints). The planner, when a constant
 * falls in the first or last histogram bucket, reads the actual extreme from such an index
 * (get_actual_variable_range) and then trusts the histogram down to one row; with empty indexes
 * the shadow could only use the histogram and clamp at 1/100 of a bucket. Must run while the
 * tables are still physically empty and before statistics are restored (the rows land in the
 * first page; extending and restoring come after). Other columns get NULL, their default or a
 * value from their statistics; FKs and triggers are off (session_replication_role = replica).
 * A table whose rows violate a constraint keeps no rows: both rows or neither, since one
 * endpoint alone would be a wrong extreme. Returns the tables stored.
 */
export async function storeEndpointRows(db: ShadowDatabase, snapshot: SourceSnapshot): Promise<string[]> {
  const { session } = db;
  const byTable = groupBy(snapshot.endpoints ?? [], (e) => (e.min === null || e.max === null ? undefined : `${e.schema}.${e.table}`));
  const stored: string[] = [];
  if (byTable.size === 0) return stored;
  await session.query(`SET session_replication_role = replica`);
  try {
    for (const ends of byTable.values()) {
      const { schema, table } = ends[0]!;
      const oid = await oidOf(session, schema, table);
      if (oid === undefined) continue;
      const cols = await session.query<{ name: string; type: string; notnull: boolean; hasdef: boolean; generated: string }>(
        `SELECT attname AS name, pg_catalog.format_type(atttypid, atttypmod) AS type, attnotnull AS notnull, atthasdef AS hasdef, attgenerated::text AS generated
         FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
        [oid],
      );
      const names: string[] = [];
      const rows: string[][] = [[], []];
      const args: unknown[] = [];
      const param = (v: unknown, cast: string) => {
        args.push(v);
        return `$${args.length}::${cast}`;
      };
      let ok = true;
      for (const c of cols.rows) {
        if (c.generated) continue;
        const end = ends.find((e) => e.column === c.name);
        if (end) {
          names.push(ident(c.name));
          rows[0]!.push(param(end.min, c.type));
          rows[1]!.push(param(end.max, c.type));
          continue;
        }
        if (!c.notnull || c.hasdef) continue; // NULL or the column's default
        const st = snapshot.stats.find((s) => s.schema === schema && s.table === table && s.column === c.name && !s.inherited)?.values;
        const sample = st?.histogram_bounds ?? st?.most_common_vals;
        if (typeof sample !== 'string') {
          ok = false;
          break;
        }
        names.push(ident(c.name));
        const v = `(${param(sample, 'text')}::${c.type}[])[1]`;
        rows[0]!.push(v);
        rows[1]!.push(v);
      }
      if (!ok || names.length === 0) continue;
      const same = ends.every((e) => e.min === e.max);
      const values = (same ? rows.slice(0, 1) : rows).map((r) => `(${r.join(', ')})`).join(', ');
      try {
        await session.query(`INSERT INTO ${ident(schema)}.${ident(table)} (${names.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${values}`, args);
        stored.push(`${schema}.${table}`);
      } catch {
        // a CHECK or unique constraint the made-up rows break: this table plans from its histogram
      }
    }
  } finally {
    await session.query(`RESET session_replication_role`);
  }
  return stored;
}
