// The shadow's oid of a relation by schema and name, as to_regclass resolves a quoted name: what
// the statistics, the relation files and the endpoint rows are addressed by.
import pg from 'pg';
import type { ShadowSession } from './session.js';

const ident = pg.escapeIdentifier;

/** The shadow's oid of each relation, in order; undefined for one it does not have. */
export async function oidsOf(session: ShadowSession, relations: readonly { schema: string; name: string }[]): Promise<(number | undefined)[]> {
  const r = await session.query<{ oid: number | null }>(
    `SELECT pg_catalog.to_regclass(q)::oid::int AS oid FROM pg_catalog.unnest($1::text[]) WITH ORDINALITY AS u(q, n) ORDER BY n`,
    [relations.map((x) => `${ident(x.schema)}.${ident(x.name)}`)],
  );
  return r.rows.map((row) => row.oid ?? undefined);
}

export async function oidOf(session: ShadowSession, schema: string, name: string): Promise<number | undefined> {
  const r = await session.query<{ oid: number | null }>(`SELECT pg_catalog.to_regclass($1)::oid::int AS oid`, [`${ident(schema)}.${ident(name)}`]);
  return r.rows[0]?.oid ?? undefined;
}
