/** SQL on one line, for lists and tables; a query's own page shows it formatted. */
export const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();
