// Who does what in the shadow server. Production's schema is rebuilt, its statistics restored and
// every query planned by a role made for one shadow database: LOGIN, not a superuser, owner of
// every object in it (pg_restore_*_stats need MAINTAIN, which owners have), connected as itself so
// no RESET ROLE can get back to more. Whatever code still runs in there (a built-in the planner
// folds, a statement we failed to refuse) runs with that role's rights: no COPY TO PROGRAM, no
// server files, no ALTER ROLE, no untrusted language, nothing outside its database.
//
// The superuser only ever does, in a fresh database where the planner role has not run anything:
// create the role, the database (which it keeps owning: the role can then neither create
// extensions, trusted languages included, nor set database-wide settings), the schemas (handed to
// the role), the allow-listed extensions, and one SECURITY DEFINER function that flips
// pg_index.indisvalid for the candidate indexes (explain.ts). That function lives in a
// schema the role cannot write, pins its search_path, and only touches indexes the role owns.
import pg from 'pg';
import type { ShadowServer } from './types.js';
import type { ShadowDdl } from './ddl.js';

/** Schema of the superuser's function; a production schema of that name is not copied. */
export const ADMIN_SCHEMA = 'qt_shadow_admin';
/** set_indexes_valid(oid[], boolean): flips indisvalid (and clears indcheckxmin) of the role's own indexes. */
export const SET_INDEXES_VALID = `${ADMIN_SCHEMA}.set_indexes_valid`;

const ident = pg.escapeIdentifier;

/** Every planner role is a member: it holds the one server-wide privilege they need. */
const PLANNERS_GROUP = 'qt_planners';

/** The planner role of a shadow database: connect as it for everything after setup. */
export const plannerRoleOf = (database: string) => `qt_planner_${database}`.slice(0, 63);

async function withSuperuser<T>(server: ShadowServer, database: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client(server.connection(database));
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * Once per shadow server: the group of planner roles, allowed to SET session_replication_role
 * (endpoint rows go in with foreign keys off, storeEndpointRows in endpoint-rows.ts). Granted once to the
 * group, not per role, so concurrent analyses never update that parameter's ACL at the same time.
 */
export async function prepareShadowServer(server: ShadowServer): Promise<void> {
  await withSuperuser(server, 'postgres', async (admin) => {
    await admin.query(`CREATE ROLE ${ident(PLANNERS_GROUP)} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS`);
    await admin.query(`GRANT SET ON PARAMETER session_replication_role TO ${ident(PLANNERS_GROUP)}`);
  });
}

/** Creates the planner role and its database, schemas, extensions and the index switch. */
export async function createShadowAccess(
  server: ShadowServer,
  name: string,
  ddl: Pick<ShadowDdl, 'schemas' | 'extensions'>,
  locale?: { collate: string; ctype: string },
): Promise<{ warnings: string[] }> {
  const role = plannerRoleOf(name);
  const warnings: string[] = [];
  await withSuperuser(server, 'postgres', async (admin) => {
    await admin.query(`CREATE ROLE ${ident(role)} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS IN ROLE ${ident(PLANNERS_GROUP)}`);
    // Production's collation changes which LIKE/sort plans an index serves; fall back to C.
    let created = false;
    if (locale && locale.collate !== 'C') {
      try {
        await admin.query(
          `CREATE DATABASE ${ident(name)} TEMPLATE template0 LC_COLLATE ${pg.escapeLiteral(locale.collate)} LC_CTYPE ${pg.escapeLiteral(locale.ctype)}`,
        );
        created = true;
      } catch {
        created = false;
      }
    }
    if (!created) await admin.query(`CREATE DATABASE ${ident(name)}`);
    await admin.query(`REVOKE ALL ON DATABASE ${ident(name)} FROM PUBLIC`);
    await admin.query(`GRANT CONNECT ON DATABASE ${ident(name)} TO ${ident(role)}`);
  });
  await withSuperuser(server, name, async (admin) => {
    await admin.query(`ALTER SCHEMA public OWNER TO ${ident(role)}`);
    for (const schema of ddl.schemas) await admin.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)} AUTHORIZATION ${ident(role)}`);
    await admin.query(`CREATE SCHEMA ${ident(ADMIN_SCHEMA)}`);
    await admin.query(`REVOKE ALL ON SCHEMA ${ident(ADMIN_SCHEMA)} FROM PUBLIC`);
    await admin.query(`GRANT USAGE ON SCHEMA ${ident(ADMIN_SCHEMA)} TO ${ident(role)}`);
    await admin.query(
      `CREATE FUNCTION ${SET_INDEXES_VALID}(indexes oid[], valid boolean) RETURNS void
       LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
         UPDATE pg_catalog.pg_index i SET indisvalid = valid, indcheckxmin = false
         FROM pg_catalog.pg_class c
         WHERE i.indexrelid OPERATOR(pg_catalog.=) ANY (indexes) AND c.oid OPERATOR(pg_catalog.=) i.indexrelid
           AND c.relowner OPERATOR(pg_catalog.=) (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname OPERATOR(pg_catalog.=) SESSION_USER)
       $$`,
    );
    await admin.query(`REVOKE ALL ON FUNCTION ${SET_INDEXES_VALID}(oid[], boolean) FROM PUBLIC`);
    await admin.query(`GRANT EXECUTE ON FUNCTION ${SET_INDEXES_VALID}(oid[], boolean) TO ${ident(role)}`);
    // Extensions run their install scripts as the superuser with the target schema on the path:
    // they go in now, while the role has created nothing anywhere. Rounds: some need another.
    let pending = ddl.extensions.map((e) => ({ ...e, error: '' }));
    for (let round = 0; round < 3 && pending.length; round++) {
      const failed: typeof pending = [];
      for (const e of pending) {
        await admin
          .query(`CREATE EXTENSION IF NOT EXISTS ${ident(e.name)} SCHEMA ${ident(e.schema)}`)
          .catch((error: Error) => failed.push({ ...e, error: error.message }));
      }
      const stuck = failed.length === pending.length;
      pending = failed;
      if (stuck) break;
    }
    for (const e of pending) warnings.push(`extension ${e.name} not created: ${e.error}`);
  });
  return { warnings };
}

/** Drops a shadow database and its role (on a server that outlives the analysis). */
export async function dropShadowAccess(server: ShadowServer, name: string): Promise<void> {
  const role = plannerRoleOf(name);
  await withSuperuser(server, 'postgres', async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS ${ident(name)} WITH (FORCE)`);
    await admin.query(`DROP ROLE IF EXISTS ${ident(role)}`);
  });
}
