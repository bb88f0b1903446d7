// Rows that give the planner production's actual extremes of indexed columns, stored in a shadow
// database that holds no data otherwise.
import pg from 'pg';
import type { Snapshot } from '../snapshot/types.js';
import { groupBy } from '../shared/collections.js';
import { oidOf } from './oids.js';
import type { ShadowDatabase } from './types.js';

const ident = pg.escapeIdentifier;

/**
 * Stores, per table, a row holding the smallest value of every column production has a B-tree
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
export async function storeEndpointRows(db: ShadowDatabase, snapshot: Snapshot): Promise<string[]> {
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
