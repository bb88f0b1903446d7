import type { Gateway } from '../../gateway/index';
import { schemaFilterParams, type SchemaFilters } from '../../shared/schema-filters';
import { allowedSchema, userSchema } from './filters';

export interface ServerRow {
  serverVersion: string;
  serverVersionNum: number;
  database: string;
  databaseOid: number;
  user: string;
  superuser: boolean;
  pgReadAllStats: boolean;
  readOnly: string;
  totalRows: number;
}

// The first statement of every sync: it proves the session is read only before anything else runs,
// and says who we are and how much data the database holds. reltuples is -1 before the first
// ANALYZE, so the statistics collector's live-tuple count stands in for it.
const serverSql = `
SELECT version() AS "serverVersion",
       current_setting('server_version_num')::int AS "serverVersionNum",
       current_database() AS database,
       (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()) AS "databaseOid",
       current_user AS user,
       (SELECT rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user) AS superuser,
       pg_has_role(current_user, 'pg_read_all_stats', 'USAGE') AS "pgReadAllStats",
       current_setting('default_transaction_read_only') AS "readOnly",
       (SELECT coalesce(sum(greatest(c.reltuples, coalesce(s.n_live_tup, 0), 0)), 0)::float8
        FROM pg_catalog.pg_class c
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_catalog.pg_stat_all_tables s ON s.relid = c.oid
        WHERE c.relkind IN ('r', 'm') AND ${userSchema('n')} AND ${allowedSchema('n', '$1', '$2')}) AS "totalRows"`;

/** Who we are, and the rows of the schemas the filters allow (the statistics strategy follows them). */
export async function readServer(db: Gateway, filters?: SchemaFilters): Promise<ServerRow> {
  const [row] = await db.rows<ServerRow>(serverSql, schemaFilterParams(filters));
  if (!row) throw new Error('The server returned no row for its own version');
  return row;
}
