import type { z } from 'zod';
import type { schemaInfoSchema } from '../../shared/analyzer-schema';
import { queryRows, type Db } from '../db';
import { userSchema } from './filters';

export const schemasSql = `
SELECT n.nspname AS name,
       pg_get_userbyid(n.nspowner) AS owner,
       d.description AS comment
FROM pg_namespace n
LEFT JOIN pg_description d ON d.objoid = n.oid AND d.classoid = 'pg_namespace'::regclass AND d.objsubid = 0
WHERE ${userSchema('n')}
ORDER BY n.nspname`;

export function listSchemas(db: Db) {
  return queryRows<z.infer<typeof schemaInfoSchema>>(db, schemasSql);
}
