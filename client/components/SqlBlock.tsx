/** Formatted SQL as the server or analyzer wrote it: whitespace kept, long lines scroll. */
export function SqlBlock({ sql, compact = false }: { sql: string; compact?: boolean }) {
  // focusable when it may scroll sideways, so keyboard users can scroll it
  return (
    <pre className={`sql${compact ? ' sql-compact' : ''}`} tabIndex={compact ? undefined : 0}>
      <code>{sql}</code>
    </pre>
  );
}
