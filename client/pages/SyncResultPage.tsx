import { Link } from 'react-router-dom';
import { SyncResult } from '../components/sync/SyncResult';
import { EmptyState } from '../components/States';
import { RelativeTime } from '../components/RelativeTime';
import { useSync } from '../sync-context';

export function SyncResultPage() {
  const { sync } = useSync();
  if (!sync) {
    return (
      <div className="page">
        <h1>Sync result</h1>
        <EmptyState title="No sync yet in this tab.">
          Sync results stay in memory only. <Link to="/">Sync a database</Link> to see its schema and queries.
        </EmptyState>
      </div>
    );
  }
  return (
    <div className="page">
      <header className="page-header">
        <div>
          <p className="breadcrumbs">
            <Link to="/">Analyzer</Link> / Sync result
          </p>
          <h1>Sync result</h1>
          <p className="muted">
            <code>{sync.target}</code> · received <RelativeTime value={sync.receivedAt} />
          </p>
        </div>
        <Link to="/" className="button">
          Sync again
        </Link>
      </header>
      <SyncResult result={sync.result} />
    </div>
  );
}
