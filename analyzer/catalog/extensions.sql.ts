import type { Extension } from '../../shared/analyzer-schema';
import type { Rows } from './filters';

const extensionsSql = `
SELECT e.extname AS name, e.extversion AS version, n.nspname AS schema
FROM pg_catalog.pg_extension e
JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
ORDER BY e.extname`;

export function listExtensions(db: Rows) {
  return db.rows<Extension>(extensionsSql);
}
