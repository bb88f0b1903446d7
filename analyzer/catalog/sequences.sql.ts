import type { Sequence } from '../../shared/analyzer-schema';
import { oidIn, userSchema, type Rows } from './filters';

// Bounds are int8 and may exceed 2^53, so they travel as text. The last value needs a privilege on
// the sequence; without it we report null rather than fail (pg_sequences does the same).
const sequencesSql = (scope: string) => `
SELECT n.nspname AS schema,
       c.relname AS name,
       format_type(s.seqtypid, NULL) AS "dataType",
       s.seqstart::text AS start,
       s.seqincrement::text AS increment,
       s.seqmin::text AS min,
       s.seqmax::text AS max,
       s.seqcache::text AS cache,
       s.seqcycle AS cycle,
       CASE WHEN has_sequence_privilege(c.oid, 'SELECT,USAGE') THEN pg_sequence_last_value(c.oid)::text END AS "lastValue",
       (SELECT json_build_object('schema', tn.nspname, 'table', t.relname, 'column', a.attname)
        FROM pg_catalog.pg_depend dep
        JOIN pg_catalog.pg_class t ON t.oid = dep.refobjid
        JOIN pg_catalog.pg_namespace tn ON tn.oid = t.relnamespace
        JOIN pg_catalog.pg_attribute a ON a.attrelid = dep.refobjid AND a.attnum = dep.refobjsubid
        WHERE dep.classid = 'pg_catalog.pg_class'::pg_catalog.regclass AND dep.objid = c.oid
          AND dep.refclassid = 'pg_catalog.pg_class'::pg_catalog.regclass AND dep.deptype IN ('a', 'i')
        LIMIT 1) AS "ownedBy"
FROM pg_catalog.pg_sequence s
JOIN pg_catalog.pg_class c ON c.oid = s.seqrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE ${scope}
ORDER BY n.nspname, c.relname`;

export function listSequences(db: Rows) {
  return db.rows<Sequence>(sequencesSql(userSchema('n')));
}

/** The sequences among `relations` (oids). */
export function sequencesOf(db: Rows, relations: number[]) {
  return db.rows<Sequence>(sequencesSql(oidIn('c.oid', '$1')), [relations]);
}
