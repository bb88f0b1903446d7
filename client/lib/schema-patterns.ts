// Schema filter patterns as people type them in a form: one comma-separated line per list (schema
// names practically never hold a comma). The rules themselves are shared/schema-filters.ts.
export const patternsOf = (text: string) =>
  text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);

export const PATTERN_HINT = 'Comma-separated globs: * any characters, ? one character, case-sensitive (e.g. tenant_*). Exclude wins.';
