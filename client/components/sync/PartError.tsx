// A part of the sync that came back as { type: "error" }: said plainly, in its own section, while
// the other parts render.

const STAT_STATEMENTS = /pg_stat_statements/i;

export function PartError({ part, error }: { part: string; error: string }) {
  const isStatStatements = STAT_STATEMENTS.test(error);
  return (
    <div className="callout callout-danger" role="alert">
      <p className="callout-title">
        {isStatStatements && /not installed|does not exist|not loaded|shared_preload/i.test(error)
          ? 'pg_stat_statements is not installed'
          : `${part} could not be read`}
      </p>
      <p className="callout-message">{error}</p>
      {isStatStatements ? <StatStatementsSetup /> : null}
    </div>
  );
}

/** What query statistics need, once per database: the extension preloaded and created, and a role that may read the statistics. */
function StatStatementsSetup() {
  return (
    <div className="setup-steps">
      <p>To collect query statistics, set up the database once:</p>
      <ol>
        <li>
          Add <code>pg_stat_statements</code> to the server setting <code>shared_preload_libraries</code> (in postgresql.conf, or{' '}
          <code>ALTER SYSTEM SET shared_preload_libraries = &apos;pg_stat_statements&apos;;</code>), restart PostgreSQL, then run{' '}
          <code>CREATE EXTENSION IF NOT EXISTS pg_stat_statements;</code> in the database.
        </li>
        <li>
          Give the user in the connection string read access to the schema and statistics views, for example <code>GRANT pg_read_all_stats TO your_user;</code>.
          No write permission is needed.
        </li>
      </ol>
    </div>
  );
}
