import type { Meta } from '../../../shared/analyzer-schema';
import { formatDuration, formatNumber } from '../../lib/time';
import { RelativeTime } from '../RelativeTime';
import { Badge } from '../Badge';

export function SyncMeta({ meta }: { meta: Meta }) {
  return (
    <>
      <dl className="facts">
        <div>
          <dt>Database</dt>
          <dd>{meta.database}</dd>
        </div>
        <div>
          <dt>User</dt>
          <dd>{meta.user}</dd>
        </div>
        <div>
          <dt>PostgreSQL</dt>
          <dd title={meta.serverVersion}>{meta.serverVersion.split(' ').slice(0, 2).join(' ')}</dd>
        </div>
        <div>
          <dt>Synced</dt>
          <dd>
            <RelativeTime value={meta.syncedAt} /> in {formatDuration(meta.durationMs)}
          </dd>
        </div>
        <div>
          <dt>Rows (estimate)</dt>
          <dd>{formatNumber(meta.totalRows)}</dd>
        </div>
        <div>
          <dt>Statistics</dt>
          <dd>
            {meta.inferredStatsStrategy === 'fromSource' ? (
              <Badge tone="success" title="The database holds enough rows for its own planner statistics to be representative">
                From this database
              </Badge>
            ) : (
              <Badge tone="neutral" title="Fewer than 5,000 rows: planner statistics fall back to defaults">
                Default
              </Badge>
            )}
          </dd>
        </div>
        <div>
          <dt>Analyzer</dt>
          <dd>v{meta.version}</dd>
        </div>
      </dl>
      {meta.visibility.notes.length > 0 ? (
        <div className="callout callout-warning">
          <p className="callout-title">What this role could not see</p>
          <ul>
            {meta.visibility.notes.map((note) => (
              <li key={note}>{note}</li>
            ))}
          </ul>
        </div>
      ) : null}
    </>
  );
}
