import type { z } from 'zod';
import type { schemaInfoSchema } from '../../shared/analyzer-schema';
import type { Rows } from './filters';
import { userSchema } from './filters';

const schemasSql = `
SELECT n.nspname AS name,
       pg_get_userbyid(n.nspowner) AS owner,
       d.description AS comment
FROM pg_catalog.pg_namespace n
LEFT JOIN pg_catalog.pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_catalog.pg_namespace'::pg_catalog.regclass AND d.objsubid = 0
WHERE ${userSchema('n')}
ORDER BY n.nspname`;

export function listSchemas(db: Rows) {
  return db.rows<z.infer<typeof schemaInfoSchema>>(schemasSql);
}
