import type { Extension } from '../../shared/analyzer-schema';
import { queryRows, type Db } from '../db';

export const extensionsSql = `
SELECT e.extname AS name, e.extversion AS version, n.nspname AS schema
FROM pg_extension e
JOIN pg_namespace n ON n.oid = e.extnamespace
ORDER BY e.extname`;

export function listExtensions(db: Db) {
  return queryRows<Extension>(db, extensionsSql);
}
