// The database a sync read: as whom, which PostgreSQL, how big, whether its own planner statistics
// are representative, and what the role could not see.
import { STATS_FROM_SOURCE_MIN_ROWS, type Meta } from '../../../shared/analyzer-schema';
import { formatDuration, formatNumber } from '../../lib/time';
import { Badge } from '../Badge';
import { Fact, Facts } from '../Facts';
import { RelativeTime } from '../RelativeTime';

export function SyncMeta({ meta }: { meta: Meta }) {
  return (
    <>
      <Facts>
        <Fact term="Database">{meta.database}</Fact>
        <Fact term="User">{meta.user}</Fact>
        <Fact term="PostgreSQL" title={meta.serverVersion}>
          {meta.serverVersion.split(' ').slice(0, 2).join(' ')}
        </Fact>
        <Fact term="Synced">
          <RelativeTime value={meta.syncedAt} /> in {formatDuration(meta.durationMs)}
        </Fact>
        <Fact term="Rows (estimate)">{formatNumber(meta.totalRows)}</Fact>
        <Fact term="Statistics">
          {meta.inferredStatsStrategy === 'fromSource' ? (
            <Badge tone="success" title="The database holds enough rows for its own planner statistics to be representative">
              From this database
            </Badge>
          ) : (
            <Badge tone="neutral" title={`Fewer than ${formatNumber(STATS_FROM_SOURCE_MIN_ROWS)} rows: planner statistics fall back to defaults`}>
              Default
            </Badge>
          )}
        </Fact>
        <Fact term="Analyzer">v{meta.version}</Fact>
      </Facts>
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
