// The first page a new user sees: where the analyzer is, which database to read, and Sync.
import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { connectionStringSchema, maskConnectionString } from '../../shared/validation';
import { TextField } from '../components/Field';
import { AnalyzerStatus } from '../components/AnalyzerStatus';
import { DemoCard } from '../components/demo/DemoCard';
import { SchemaFilterFields, useSchemaFilterFields, type SchemaFilterState } from '../components/SchemaFilterFields';
import { useAnalyzerHealth } from '../hooks/useAnalyzerHealth';
import { useLocalStorage } from '../hooks/useLocalStorage';
import { ANALYZER_URL_STORAGE_KEY, AnalyzerError, DEFAULT_ANALYZER_URL, normalizeAnalyzerUrl, syncDatabase, validateAnalyzerUrl } from '../lib/analyzer';
import { validate } from '../lib/errors';
import { useSync } from '../sync-context';

const ANALYZER_NPM_COMMAND = 'npm run analyzer';
const ANALYZER_DOCKER_COMMAND = 'docker run -p 2345:2345 querytrail';

function StartInstructions() {
  return (
    <div className="callout callout-warning">
      <p className="callout-title">The analyzer is not reachable. Start it on this machine:</p>
      <ul className="command-list">
        <li>
          From a querytrail checkout: <code className="command">{ANALYZER_NPM_COMMAND}</code>
        </li>
        <li>
          Or with Docker (image built with <code>docker build -t querytrail .</code>): <code className="command">{ANALYZER_DOCKER_COMMAND}</code>
        </li>
      </ul>
      <p className="muted">This page checks again every 10 seconds.</p>
    </div>
  );
}

function syncErrorHint(error: unknown): string | undefined {
  if (!(error instanceof AnalyzerError)) return undefined;
  switch (error.code) {
    case 'authentication_failed':
      return 'Check the user name and password in the connection string.';
    case 'connection_refused':
    case 'host_not_found':
    case 'timeout':
      return 'Check the host and port, and that PostgreSQL accepts connections from the analyzer (from inside Docker, localhost is the container itself: try host.docker.internal).';
    case 'database_not_found':
      return 'Check the database name at the end of the connection string.';
    case 'origin_not_allowed':
      return `The analyzer does not accept requests from ${window.location.origin}. Add it to ANALYZER_ALLOWED_ORIGINS when starting the analyzer.`;
    default:
      return undefined;
  }
}

function AnalyzerCard({ url }: { url: string }) {
  const health = useAnalyzerHealth(url);
  return (
    <section className="card" aria-labelledby="analyzer-heading">
      <div className="card-row">
        <h2 id="analyzer-heading" className="card-title">
          Analyzer
        </h2>
        <AnalyzerStatus health={health} url={normalizeAnalyzerUrl(url)} />
      </div>
      {health === 'not-live' ? <StartInstructions /> : null}
    </section>
  );
}

function SyncFailed({ error }: { error: Error }) {
  const hint = syncErrorHint(error);
  return (
    <div className="callout callout-danger" role="alert">
      <p className="callout-title">Sync failed</p>
      <p>{error.message}</p>
      {hint ? <p>{hint}</p> : null}
    </div>
  );
}

interface AdvancedSettingsProps {
  urlDraft: string;
  onUrlChange: (value: string) => void;
  urlError: string | undefined;
  filters: SchemaFilterState;
}

/** The analyzer's endpoint and the schemas to read, folded away: the defaults fit most databases. */
function AdvancedSettings({ urlDraft, onUrlChange, urlError, filters }: AdvancedSettingsProps) {
  return (
    <details className="advanced">
      <summary>Advanced settings</summary>
      <TextField
        label="Analyzer endpoint"
        value={urlDraft}
        onChange={onUrlChange}
        error={urlError}
        hint={`Default ${DEFAULT_ANALYZER_URL}. Remembered in this browser.`}
        autoComplete="off"
        spellCheck={false}
        inputMode="url"
      />
      {normalizeAnalyzerUrl(urlDraft) !== DEFAULT_ANALYZER_URL ? (
        <button type="button" className="button button-small" onClick={() => onUrlChange(DEFAULT_ANALYZER_URL)}>
          Reset to default
        </button>
      ) : null}
      <SchemaFilterFields fields={filters} layout="stacked" />
    </details>
  );
}

export function OnboardingPage() {
  const navigate = useNavigate();
  const { sync, setSync } = useSync();
  const [storedUrl, setStoredUrl] = useLocalStorage(ANALYZER_URL_STORAGE_KEY, DEFAULT_ANALYZER_URL);
  const [urlDraft, setUrlDraft] = useState(storedUrl);
  const [connectionString, setConnectionString] = useState('');
  const [touched, setTouched] = useState(false);
  const filters = useSchemaFilterFields();

  const urlError = validateAnalyzerUrl(urlDraft);
  const connectionError = validate(connectionStringSchema, connectionString);

  const syncMutation = useMutation({
    mutationFn: (db: string) => syncDatabase(storedUrl, db, filters.patterns()),
    onSuccess: (result, db) => {
      setSync({ result, target: maskConnectionString(db.trim()), receivedAt: new Date().toISOString() });
      navigate('/sync');
    },
  });

  const onUrlChange = (value: string) => {
    setUrlDraft(value);
    if (!validateAnalyzerUrl(value)) setStoredUrl(normalizeAnalyzerUrl(value));
  };

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    setTouched(true);
    if (connectionError || urlError || !filters.valid) return;
    syncMutation.mutate(connectionString.trim());
  };

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <div>
          <h1>Analyze a PostgreSQL database</h1>
          <p className="lead">
            The analyzer runs on your machine, connects to your database read-only and hands its schema and query statistics to this page. The data stays on
            your machine.
          </p>
        </div>
      </header>

      <AnalyzerCard url={storedUrl} />

      <form className="card form" onSubmit={onSubmit} noValidate aria-labelledby="sync-heading">
        <h2 id="sync-heading" className="card-title">
          Sync a database
        </h2>
        <TextField
          label="PostgreSQL connection string"
          value={connectionString}
          onChange={setConnectionString}
          onBlur={() => connectionString && setTouched(true)}
          error={touched ? connectionError : undefined}
          placeholder="postgresql://user:password@localhost:5432/app"
          autoComplete="off"
          spellCheck={false}
          hint="Read-only access to the schema and statistics views is enough. The connection string goes to the analyzer only."
          required
        />
        <AdvancedSettings urlDraft={urlDraft} onUrlChange={onUrlChange} urlError={urlError} filters={filters} />
        {syncMutation.isError ? <SyncFailed error={syncMutation.error} /> : null}
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={syncMutation.isPending}>
            {syncMutation.isPending ? 'Syncing…' : 'Sync'}
          </button>
          {syncMutation.isPending ? (
            <span className="muted" role="status">
              Reading schema and statistics…
            </span>
          ) : null}
          {sync && !syncMutation.isPending ? (
            <Link to="/sync" className="link">
              View the last sync result
            </Link>
          ) : null}
        </div>
      </form>

      <DemoCard />
    </div>
  );
}
