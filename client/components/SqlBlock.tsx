/** Formatted SQL as the server or analyzer wrote it: whitespace kept, long lines scroll. */
export function SqlBlock({ sql, label, compact = false }: { sql: string; label?: string; compact?: boolean }) {
  return (
    <pre className={`sql${compact ? ' sql-compact' : ''}`} aria-label={label} tabIndex={compact ? undefined : 0}>
      <code>{sql}</code>
    </pre>
  );
}
