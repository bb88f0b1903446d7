// The table map: what the advisor knows of production's tables while it reads a query (which
// names resolve to a table, as the application's search_path would; its columns; how many
// distinct values a column holds). Built from a snapshot here; the unit tests build a small one
// by hand. Not the query catalog, nor PostgreSQL's system catalogs.
import type { SnapshotColumnStats, Snapshot } from '../snapshot/types.js';

export interface TableName {
  schema: string;
  table: string;
}

export interface ColumnInfo {
  type: string;
  /** pg_type.typcategory of the column's type: 'A' array, 'U' user-defined (jsonb is 'U'), ... */
  category: string;
}

export interface TableMap {
  /** Resolves a name as the query's search_path would; undefined for views, CTEs and unknown names. */
  resolve(schema: string | undefined, name: string): TableName | undefined;
  columns(table: TableName): Map<string, ColumnInfo> | undefined;
  /** Estimated distinct values of a column (positive), to put the most selective equality first. */
  distinct(table: TableName, column: string): number;
  /** A view's `CREATE VIEW ... AS SELECT` as the snapshot read it, resolved like `resolve`; undefined for other names. */
  view?(schema: string | undefined, name: string): string | undefined;
}

/** `schema.name` as quote_ident printed both parts, back to the two names. */
function splitQualified(qualified: string): [string, string] | undefined {
  const part = `("(?:[^"]|"")*"|[^".]+)`;
  const m = new RegExp(`^${part}\\.${part}$`).exec(qualified);
  const unquote = (s: string) => (s.startsWith('"') ? s.slice(1, -1).replace(/""/g, '"') : s);
  return m ? [unquote(m[1]!), unquote(m[2]!)] : undefined;
}

/** Distinct values a column holds: pg_stats' n_distinct, which is a fraction of the rows when negative. */
const distinctValues = (nDistinct: number, rows: number) => (nDistinct < 0 ? -nDistinct * Math.max(rows, 1) : nDistinct);

/** Tables, materialized views and partitioned tables of the snapshot: what an index can be built on. */
export function tableMapOf(snapshot: Snapshot): TableMap {
  const tables = new Map<string, Map<string, ColumnInfo>>();
  const kinds = new Map(snapshot.relations.map((r) => [`${r.schema}.${r.name}`, r]));
  for (const c of snapshot.columns) {
    const k = `${c.schema}.${c.table}`;
    if (!['r', 'p', 'm'].includes(kinds.get(k)?.kind ?? '')) continue;
    if (!tables.has(k)) tables.set(k, new Map());
    tables.get(k)!.set(c.name, { type: c.type, category: c.category });
  }
  const stats = new Map<string, SnapshotColumnStats>();
  for (const s of snapshot.stats) {
    const k = `${s.schema}.${s.table}.${s.column}`;
    // A partitioned parent's own statistics are the inherited ones.
    if (!stats.has(k) || s.inherited === (kinds.get(`${s.schema}.${s.table}`)?.kind === 'p')) stats.set(k, s);
  }
  const views = new Map<string, string>();
  for (const d of snapshot.ddl) {
    const name = d.kind === 'view' ? splitQualified(d.name) : undefined;
    if (name) views.set(`${name[0]}.${name[1]}`, d.sql);
  }
  const path = snapshot.searchPath
    .split(',')
    .map((s) => s.trim().replace(/^"(.*)"$/, '$1'))
    .filter((s) => s && s !== '$user');
  return {
    resolve(schema, name) {
      for (const s of schema ? [schema] : ['pg_catalog', ...path]) if (tables.has(`${s}.${name}`)) return { schema: s, table: name };
      return undefined;
    },
    columns: (t) => tables.get(`${t.schema}.${t.table}`),
    view(schema, name) {
      for (const s of schema ? [schema] : ['pg_catalog', ...path]) {
        if (tables.has(`${s}.${name}`)) return undefined;
        const sql = views.get(`${s}.${name}`);
        if (sql !== undefined) return sql;
      }
      return undefined;
    },
    distinct(t, column) {
      const s = stats.get(`${t.schema}.${t.table}.${column}`);
      // Without statistics a column is taken as PostgreSQL does: 200 distinct values.
      return distinctValues(Number(s?.values.n_distinct ?? 200), kinds.get(`${t.schema}.${t.table}`)?.reltuples ?? 0);
    },
  };
}

/** Width, NULL share and distinct values of one column of one table (its own statistics), for sizing an index. */
export function columnSize(snapshot: Snapshot, schema: string, table: string, column: string) {
  const s = snapshot.stats.find((x) => x.schema === schema && x.table === table && x.column === column && !x.inherited);
  const rel = snapshot.relations.find((r) => r.schema === schema && r.name === table);
  return {
    avgWidth: Number(s?.values.avg_width ?? 8),
    nullFrac: Number(s?.values.null_frac ?? 0),
    // Without statistics a column is taken as unique.
    distinct: distinctValues(Number(s?.values.n_distinct ?? -1), rel?.reltuples ?? 1),
  };
}
