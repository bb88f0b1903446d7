// The streamed sync (POST /postgres, read chunk by chunk, written from spools) answers what the sync
// answered when it built the answer in memory (analyzer/reference-sync.ts), parsed and compared:
// on Pagila loaded into four schemas (one with rows, statistics and sample rows), cut into many small
// chunks that straddle schemas and spill to temp files, on every major under test; and on GitLab's
// structure.sql (partitions in other schemas than their parents) on the newest.
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { remoteSyncResponseSchema, type RemoteSyncResponse } from '../shared/analyzer-schema';
import { GITLAB_SQL, loadPagilaTenants, loadSqlFile, majorsUnderTest, postSync, startTestAnalyzer } from '../test/support/analyzer';
import { startPostgres, type PostgresServer } from '../test/support/postgres';
import { referenceSync } from './reference-sync';
import { DEFAULT_SYNC_SETTINGS, syncDatabase } from './sync';

/** Small chunks, three at a time, and almost no memory for the spools: every path of the stream is taken. */
const STRESSED = { ...DEFAULT_SYNC_SETTINGS, chunkWeight: 40, chunkConcurrency: 3, spoolMemoryChars: 20_000 };

/**
 * What may differ between two syncs a moment apart: their clocks, and the counters the first sync's
 * own reads moved (sampling scans tables) or that pg_stat_statements gathered meanwhile.
 */
function comparable(response: RemoteSyncResponse) {
  const copy = structuredClone(response);
  if (copy.meta.type === 'ok') {
    copy.meta.value.syncedAt = '';
    copy.meta.value.durationMs = 0;
  }
  if (copy.schema.type === 'ok') {
    for (const table of copy.schema.value.tables) {
      if (table.stats) {
        table.stats.seqScans = null;
        table.stats.indexScans = null;
      }
    }
  }
  if (copy.indexHealth?.type === 'ok') {
    copy.indexHealth.value.readAt = '';
    for (const index of copy.indexHealth.value.indexes) index.scans = null;
  }
  copy.queries = { type: 'ok', value: [] };
  return copy;
}

describe.each(majorsUnderTest())('streamed sync on PostgreSQL %i', (major) => {
  let server: PostgresServer;
  let url: string;

  beforeAll(async () => {
    server = await startPostgres({ major });
    url = await loadPagilaTenants(server);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('equals the in-memory sync, in many chunks spilled to temp files', async () => {
    const request = { db: url, sampleRows: 5, queryLimit: 500 };
    const before = await referenceSync(request);
    const spoolFolders = () => readdirSync(tmpdir()).filter((name) => name.startsWith('querytrail-sync-')).length;
    const folders = spoolFolders();
    const streamed = await syncDatabase(request, STRESSED);
    expect(spoolFolders()).toBe(folders); // the temp files went with the answer
    expect(streamed.schema.type).toBe('ok');
    if (streamed.schema.type !== 'ok') return;
    const { tables, indexes, warnings } = streamed.schema.value;
    expect(tables).toHaveLength(4 * 70);
    expect(indexes).toHaveLength(4 * 162 + 1);
    expect(warnings).toEqual([]);
    // the rows of t1 came back as sample rows, with their statistics
    const actor = tables.find((t) => t.schema === 't1' && t.name === 'actor')!;
    expect(actor.sampleRows).toMatchObject({ type: 'ok', value: expect.arrayContaining([expect.objectContaining({ first_name: 'First1' })]) });
    expect(actor.columns.find((c) => c.name === 'last_name')!.stats).toMatchObject({ nDistinct: 7 });
    expect(comparable(streamed)).toEqual(comparable(before));
  });

  it('answers POST /postgres as a stream equal to the in-memory sync', async () => {
    const analyzer = await startTestAnalyzer({ chunkWeight: 100, spoolMemoryChars: 50_000 });
    try {
      const answer = await postSync(analyzer.url, { db: url, sampleRows: 0 });
      expect(answer.status).toBe(200);
      expect(answer.headers['content-type']).toMatch(/^application\/json/);
      const streamed = remoteSyncResponseSchema.parse(answer.json);
      const before = await referenceSync({ db: url, sampleRows: 0, queryLimit: 500 });
      expect(comparable(streamed)).toEqual(comparable(before));
      expect(analyzer.logs).toEqual([expect.stringMatching(/^sync tenants: \d+ ms, [\d.]+ MB via temp files$/)]);
    } finally {
      await analyzer.close();
    }
  });
});

describe('streamed sync of GitLab on PostgreSQL 18', () => {
  let server: PostgresServer;
  let url: string;

  beforeAll(async () => {
    server = await startPostgres({ major: 18 });
    url = await server.createDatabase('gitlab');
    await loadSqlFile(url, GITLAB_SQL, 18);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('equals the in-memory sync (partitions and their indexes in other schemas than their parents)', async () => {
    const request = { db: url, sampleRows: 5, queryLimit: 500 };
    const before = await referenceSync(request);
    const streamed = await syncDatabase(request, { ...DEFAULT_SYNC_SETTINGS, chunkWeight: 500 });
    expect(streamed.schema.type === 'ok' && streamed.schema.value.indexes.length).toBe(3642);
    expect(streamed.indexHealth?.type === 'ok' && streamed.indexHealth.value.indexes.length).toBeGreaterThan(1000);
    expect(comparable(streamed)).toEqual(comparable(before));
  });
});
