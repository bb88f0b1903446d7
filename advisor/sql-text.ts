// SQL text the advisor writes for people to read and run (CREATE INDEX statements, partial-index
// predicates): identifiers are quoted only when PostgreSQL needs them quoted.

export function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_$]*$/.test(name) ? name : `"${name.replace(/"/g, '""')}"`;
}

/** Always quoted, as pg.escapeIdentifier does: safe for keywords and any name, for DDL the shadow runs. */
export function escapeIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}
