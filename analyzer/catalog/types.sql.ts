import type { z } from 'zod';
import type { compositeTypeSchema, domainTypeSchema, enumTypeSchema, Types } from '../../shared/analyzer-schema';
import { notFromExtension, oidIn, userSchema, type Rows } from './filters';

// Enums, domains and standalone composite types (a table's row type is its table, not a type here).
const typesSql = (scope: string) => `
SELECT n.nspname AS schema,
       t.typname AS name,
       t.typtype AS kind,
       (SELECT json_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_catalog.pg_enum e WHERE e.enumtypid = t.oid) AS labels,
       CASE WHEN t.typtype = 'd' THEN format_type(t.typbasetype, t.typtypmod) END AS "baseType",
       t.typnotnull AS "notNull",
       t.typdefault AS default,
       (SELECT coalesce(json_agg(json_build_object('name', con.conname, 'definition', pg_get_constraintdef(con.oid, true)) ORDER BY con.conname), '[]')
        FROM pg_catalog.pg_constraint con WHERE con.contypid = t.oid) AS constraints,
       (SELECT json_agg(json_build_object('name', a.attname, 'type', format_type(a.atttypid, a.atttypmod)) ORDER BY a.attnum)
        FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.typrelid AND a.attnum > 0 AND NOT a.attisdropped) AS attributes
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
LEFT JOIN pg_catalog.pg_class c ON c.oid = t.typrelid
WHERE (t.typtype IN ('e', 'd') OR (t.typtype = 'c' AND c.relkind = 'c'))
  AND ${notFromExtension('pg_type', 't.oid')} AND ${scope}
ORDER BY n.nspname, t.typname`;

interface TypeRow {
  schema: string;
  name: string;
  kind: 'e' | 'd' | 'c';
  labels: string[] | null;
  baseType: string | null;
  notNull: boolean;
  default: string | null;
  constraints: { name: string; definition: string }[];
  attributes: { name: string; type: string }[] | null;
}

export function listTypes(db: Rows): Promise<Types> {
  return readTypes(db, typesSql(userSchema('n')), []);
}

/** The types `types` (their oids). */
export function typesById(db: Rows, types: number[]): Promise<Types> {
  return readTypes(db, typesSql(oidIn('t.oid', '$1')), [types]);
}

async function readTypes(db: Rows, sql: string, params: unknown[]): Promise<Types> {
  const rows = await db.rows<TypeRow>(sql, params);
  const enums: z.infer<typeof enumTypeSchema>[] = [];
  const domains: z.infer<typeof domainTypeSchema>[] = [];
  const composites: z.infer<typeof compositeTypeSchema>[] = [];
  for (const row of rows) {
    const { schema, name } = row;
    if (row.kind === 'e') enums.push({ schema, name, labels: row.labels ?? [] });
    else if (row.kind === 'd') {
      domains.push({ schema, name, baseType: row.baseType ?? '', notNull: row.notNull, default: row.default, constraints: row.constraints });
    } else composites.push({ schema, name, attributes: row.attributes ?? [] });
  }
  return { enums, domains, composites };
}
