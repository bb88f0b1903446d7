// The shadow's relation files at production's length. PostgreSQL's planner does not take a
// table's size from pg_class alone: it reads the physical length of the relation
// (RelationGetNumberOfBlocks) and scales pg_class's density (reltuples / relpages) by it
// (table_block_relation_estimate_size in PG18; estimate_rel_size for indexes, and
// get_relation_info uses the physical length as an index's page count). A schema-only copy
// therefore plans every table as empty, whatever pg_restore_relation_stats says.
// Measured fix: after restoring the statistics we extend each relation's files to production's
// physical length with ftruncate, which makes sparse files of zero pages: no disk space, no
// writes through the buffer manager, and PostgreSQL treats an all-zero page as a valid empty page.
// Nothing ever reads them, because we only EXPLAIN. Autovacuum is off in the shadow server, since
// it would truncate the empty tail again.
import { openSync, ftruncateSync, fstatSync, closeSync, constants } from 'node:fs';
import { spawn } from 'node:child_process';
import path from 'node:path';
import type { SnapshotRelation } from '../snapshot/types.js';
import { resizeAsOwner } from './file-resizer.js';
import { oidOf } from './oids.js';
import type { ShadowSession } from './session.js';
import type { ShadowDatabase, ShadowServer } from './types.js';

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
        fd = grow
          ? openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600)
          : openSync(file, constants.O_RDWR | constants.O_NOFOLLOW);
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

/** Extends tables and existing indexes to production's physical sizes; returns what it extended. */
export async function extendRelations(server: ShadowServer, db: ShadowDatabase, relations: SnapshotRelation[]): Promise<ExtendJob[]> {
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
export async function tableFiles(db: ShadowDatabase, relations: SnapshotRelation[]): Promise<ShrinkJob[]> {
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
