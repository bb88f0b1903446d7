// Which schemas a pg_stat_statements entry belongs to, for a connection's schema filters.
//
// pg_stat_statements keys an entry by user, database and queryid; it records neither the schemas
// of the relations the statement touched nor the search_path it ran under. So an entry is
// attributed by the relations its text names (FROM, JOIN, INSERT INTO, UPDATE, DELETE, a
// set-returning function in FROM):
// - a schema-qualified name belongs to that schema;
// - an unqualified name belongs to the schemas holding a relation of that name, when only schemas
//   the filters leave out hold one (catalog/excluded-names.sql.ts); a name an allowed schema also
//   holds, or no schema holds, is not attributed;
// and an entry is left out when any relation it names belongs to a schema the filters leave out.
// Limits: the same unqualified text run against an allowed and an excluded tenant (the search_path
// differs) is one text, and is kept; the texts are read from the view before they are judged, then
// dropped in memory, so nothing of them is stored or shown. A text the parser cannot read is kept
// (the catalog leaves it out anyway as unparseable).
import { parseSync } from 'libpg-query';
import { hasSchemaFilters, schemaMatcher, type SchemaFilters } from '../shared/schema-filters';
import { listExcludedOnlyNames } from './catalog/excluded-names.sql';
import type { Rows } from './catalog/filters';
import { relationsOf } from './statement-relations';

const SYSTEM_SCHEMAS = new Set(['pg_catalog', 'information_schema']);

/** The filter over statement texts, or null when the connection has no filters (nothing to read, nothing left out). */
export async function statementSchemaFilter(db: Rows, filters: SchemaFilters | undefined): Promise<((query: string) => boolean) | null> {
  if (!hasSchemaFilters(filters)) return null;
  const excludedOnly = await listExcludedOnlyNames(db, filters);
  const allowed = schemaMatcher(filters);
  const verdicts = new Map<string, boolean>();
  return (query) => {
    const known = verdicts.get(query);
    if (known !== undefined) return known;
    let keep: boolean;
    try {
      keep = relationsOf(parseSync(query)).every(({ schema, name }) =>
        schema === undefined ? !excludedOnly.has(name) : SYSTEM_SCHEMAS.has(schema) || schema.startsWith('pg_') || allowed(schema),
      );
    } catch {
      keep = true;
    }
    verdicts.set(query, keep);
    return keep;
  };
}
