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
import { openSync, ftruncateSync, fstatSync, closeSync, chownSync, existsSync } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import type { ShadowServer } from './shadow-server.js';
import type { SourceSnapshot, SourceRelation } from './source.js';

export interface ShadowDatabase {
  client: pg.Client;
  name: string;
  /** DDL statements the shadow could not run (unsupported language, missing extension, ...). */
  ddlErrors: { sql: string; error: string }[];
  close(): Promise<void>;
}

const ident = pg.escapeIdentifier;

/** Creates a database, runs the snapshot's DDL and applies the source's planner settings. */
export async function createShadowDatabase(server: ShadowServer, snapshot: SourceSnapshot, name: string, locale?: { collate: string; ctype: string }): Promise<ShadowDatabase> {
  const admin = new pg.Client(server.connection());
  await admin.connect();
  try {
    // The source's collation changes which LIKE/sort plans an index serves; fall back to C.
    let created = false;
    if (locale && locale.collate !== 'C') {
      try {
        await admin.query(`CREATE DATABASE ${ident(name)} TEMPLATE template0 LC_COLLATE ${pg.escapeLiteral(locale.collate)} LC_CTYPE ${pg.escapeLiteral(locale.ctype)}`);
        created = true;
      } catch {
        created = false;
      }
    }
    if (!created) await admin.query(`CREATE DATABASE ${ident(name)}`);
  } finally {
    await admin.end();
  }
  const client = new pg.Client(server.connection(name));
  await client.connect();
  await client.query(`SET check_function_bodies = off; SET client_min_messages = warning`);
  // Statements depend on each other in ways catalogs do not order for us (views on functions on
  // types): run them in rounds until a round makes no progress.
  let pending = snapshot.ddl.map((d) => d.sql);
  let errors: { sql: string; error: string }[] = [];
  for (let round = 0; round < 6 && pending.length; round++) {
    errors = [];
    for (const sql of pending) {
      try {
        await client.query(sql);
      } catch (e) {
        errors.push({ sql, error: (e as Error).message });
      }
    }
    if (errors.length === pending.length) break;
    pending = errors.map((e) => e.sql);
  }
  // Partition parts of an index get names PostgreSQL chose; give them the source's names so
  // statistics and plans line up.
  for (const idx of snapshot.indexes.filter((i) => i.parent)) {
    const row = await client.query<{ name: string }>(
      `SELECT c.relname AS name FROM pg_inherits h JOIN pg_class c ON c.oid = h.inhrelid JOIN pg_index i ON i.indexrelid = c.oid
       WHERE h.inhparent = to_regclass($1) AND i.indrelid = to_regclass($2)`,
      [`${ident(idx.schema)}.${ident(idx.parent!)}`, `${ident(idx.schema)}.${ident(idx.table)}`],
    );
    const current = row.rows[0]?.name;
    if (current && current !== idx.name) {
      await client.query(`ALTER INDEX ${ident(idx.schema)}.${ident(current)} RENAME TO ${ident(idx.name)}`).catch(() => undefined);
    }
  }
  await applySettings(client, snapshot);
  return {
    client,
    name,
    ddlErrors: errors,
    async close() {
      await client.end();
    },
  };
}

export async function applySettings(client: pg.Client, snapshot: SourceSnapshot): Promise<void> {
  for (const [k, v] of Object.entries(snapshot.settings)) {
    await client.query(`SELECT set_config($1, $2, false)`, [k, v]).catch(() => undefined);
  }
  await client.query(`SELECT set_config('search_path', $1, false)`, [snapshot.searchPath]).catch(() => undefined);
}

/** pg_restore_relation_stats for one relation of the shadow (by oid). */
export async function restoreRelationStats(client: pg.Client, oid: number, stats: { relpages: number; reltuples: number; relallvisible: number }): Promise<void> {
  await client.query(
    `SELECT pg_restore_relation_stats('schemaname', n.nspname::text, 'relname', c.relname::text, 'relpages', $2::int, 'reltuples', $3::real, 'relallvisible', $4::int)
     FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = $1`,
    [oid, Math.round(stats.relpages), stats.reltuples, Math.round(stats.relallvisible)],
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
  const { client } = db;
  const warnings: string[] = [];
  for (const r of snapshot.relations) {
    const oid = await oidOf(client, r.schema, r.name);
    if (oid === undefined) continue;
    await restoreRelationStats(client, oid, r).catch((e: Error) => warnings.push(`${r.schema}.${r.name}: ${e.message}`));
  }
  for (const s of snapshot.stats) {
    const args: unknown[] = [s.schema, s.table, s.column, s.inherited];
    const parts: string[] = [];
    for (const [field, value] of Object.entries(s.values)) {
      if (value === null || !ATTRIBUTE_TYPES[field]) continue;
      args.push(value);
      parts.push(`'${field}', $${args.length}::${ATTRIBUTE_TYPES[field]}`);
    }
    // An index's expression columns are restored by position, not by name.
    await client
      .query(`SELECT pg_restore_attribute_stats('schemaname', $1::text, 'relname', $2::text, 'attname', $3::text, 'inherited', $4::boolean${parts.length ? ', ' + parts.join(', ') : ''})`, args)
      .catch((e: Error) => warnings.push(`${s.schema}.${s.table}.${s.column}: ${e.message}`));
  }
  return { warnings };
}

export async function oidOf(client: pg.Client, schema: string, name: string): Promise<number | undefined> {
  const r = await client.query<{ oid: number | null }>(`SELECT to_regclass($1)::oid::int AS oid`, [`${ident(schema)}.${ident(name)}`]);
  return r.rows[0]?.oid ?? undefined;
}

interface StorageInfo {
  dataDir: string;
  blockSize: number;
  segmentBlocks: number;
}

async function storageInfo(server: ShadowServer, client: pg.Client): Promise<StorageInfo> {
  const r = await client.query<{ bs: number; seg: number }>(
    `SELECT current_setting('block_size')::int AS bs, (SELECT setting::int FROM pg_settings WHERE name = 'segment_size') AS seg`,
  );
  return { dataDir: server.dataDir, blockSize: r.rows[0]!.bs, segmentBlocks: r.rows[0]!.seg };
}

/**
 * Grows a relation's main fork to `blocks` pages with sparse files, segment by segment as
 * md.c lays them out (relfilenode, relfilenode.1, ... of segment_size each).
 */
export async function extendRelation(server: ShadowServer, client: pg.Client, oid: number, blocks: number, storage?: StorageInfo): Promise<void> {
  if (blocks <= 0) return;
  const info = storage ?? (await storageInfo(server, client));
  const r = await client.query<{ path: string | null }>(`SELECT pg_relation_filepath($1::oid) AS path`, [oid]);
  const rel = r.rows[0]?.path;
  if (!rel) return;
  const base = path.join(info.dataDir, rel);
  let remaining = blocks;
  for (let seg = 0; remaining > 0; seg++) {
    const file = seg === 0 ? base : `${base}.${seg}`;
    const segBlocks = Math.min(remaining, info.segmentBlocks);
    const isNew = !existsSync(file);
    const fd = openSync(file, isNew ? 'w' : 'r+', 0o600);
    try {
      if (fstatSync(fd).size < segBlocks * info.blockSize) ftruncateSync(fd, segBlocks * info.blockSize);
    } finally {
      closeSync(fd);
    }
    if (isNew && server.fileOwner) chownSync(file, server.fileOwner.uid, server.fileOwner.gid);
    remaining -= segBlocks;
  }
}

/** Extends tables and existing indexes to the source's physical sizes. */
export async function extendRelations(server: ShadowServer, db: ShadowDatabase, relations: SourceRelation[]): Promise<void> {
  const storage = await storageInfo(server, db.client);
  for (const r of relations) {
    if (!['r', 'm', 'i'].includes(r.kind) || r.blocks <= 0) continue;
    const oid = await oidOf(db.client, r.schema, r.name);
    if (oid !== undefined) await extendRelation(server, db.client, oid, r.blocks, storage);
  }
}

export interface PlanNode {
  'Node Type': string;
  'Total Cost': number;
  'Startup Cost': number;
  'Plan Rows': number;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Join Type'?: string;
  Strategy?: string;
  Plans?: PlanNode[];
  [key: string]: unknown;
}

/**
 * EXPLAIN (GENERIC_PLAN) with exactly the given candidate indexes valid. Always rolled back, so
 * the flipped flags never outlive the statement.
 */
export async function explain(client: pg.Client, sql: string, validIndexOids: number[] = []): Promise<PlanNode> {
  await client.query('BEGIN');
  try {
    if (validIndexOids.length) {
      // indcheckxmin false: the updated pg_index row is new, and a set flag would hide the index.
      await client.query(`UPDATE pg_index SET indisvalid = true, indcheckxmin = false WHERE indexrelid = ANY($1::oid[])`, [validIndexOids]);
    }
    const r = await client.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`);
    return r.rows[0]!['QUERY PLAN'][0]!.Plan;
  } finally {
    await client.query('ROLLBACK');
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
  const { client } = db;
  const byTable = new Map<string, NonNullable<SourceSnapshot['endpoints']>>();
  for (const e of snapshot.endpoints ?? []) {
    if (e.min === null || e.max === null) continue;
    const k = `${e.schema}.${e.table}`;
    if (!byTable.has(k)) byTable.set(k, []);
    byTable.get(k)!.push(e);
  }
  const stored: string[] = [];
  if (byTable.size === 0) return stored;
  await client.query(`SET session_replication_role = replica`);
  try {
    for (const ends of byTable.values()) {
      const { schema, table } = ends[0]!;
      const oid = await oidOf(client, schema, table);
      if (oid === undefined) continue;
      const cols = await client.query<{ name: string; type: string; notnull: boolean; hasdef: boolean; generated: string }>(
        `SELECT attname AS name, format_type(atttypid, atttypmod) AS type, attnotnull AS notnull, atthasdef AS hasdef, attgenerated::text AS generated
         FROM pg_attribute WHERE attrelid = $1 AND attnum > 0 AND NOT attisdropped ORDER BY attnum`,
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
        await client.query(`INSERT INTO ${ident(schema)}.${ident(table)} (${names.join(', ')}) OVERRIDING SYSTEM VALUE VALUES ${values}`, args);
        stored.push(`${schema}.${table}`);
      } catch {
        // a CHECK or unique constraint the made-up rows break: this table plans from its histogram
      }
    }
  } finally {
    await client.query(`RESET session_replication_role`);
  }
  return stored;
}
