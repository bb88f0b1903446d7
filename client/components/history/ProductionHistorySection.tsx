// The environment's production history: its heaviest queries in a range and the ones whose mean time
// rose by more than half against the range before, and how often production is read for it.
import { useState } from 'react';
import './history.css';
import { Link } from 'react-router-dom';
import type { HistoryRange } from '../../../shared/history';
import { Card } from '../Card';
import { QueryTable } from '../DataTable';
import { EmptyState } from '../States';
import { queryPath } from '../../lib/paths';
import { formatDuration, formatNumber } from '../../lib/time';
import { trpc } from '../../trpc';
import { RangePicker, rangeLabel, windowEndingNow } from './RangePicker';
import { ReadingInterval } from './ReadingInterval';

type Named = { hash: string; formattedQuery: string | null };

function QueryCell({ envId, query }: { envId: string; query: Named }) {
  const text = query.formattedQuery?.replace(/\s+/g, ' ') ?? `Query ${query.hash}`;
  return (
    <td className="query-cell">
      <Link to={queryPath(envId, query.hash)} title={text}>
        <code>{text.length > 120 ? `${text.slice(0, 117)}…` : text}</code>
      </Link>
    </td>
  );
}

const TOP_COLUMNS = ['Query', { label: 'Calls', className: 'numeric' }, { label: 'Total time', className: 'numeric' }, { label: 'Mean', className: 'numeric' }];
const REGRESSED_COLUMNS = [
  'Query',
  { label: 'Mean before', className: 'numeric' },
  { label: 'Mean now', className: 'numeric' },
  { label: 'Change', className: 'numeric' },
];

/** The intervals are the environment's snapshotIntervalSeconds and effectiveSnapshotIntervalSeconds. */
export function ProductionHistorySection({
  envId,
  intervalSeconds,
  effectiveIntervalSeconds,
}: {
  envId: string;
  intervalSeconds: number | null;
  effectiveIntervalSeconds: number;
}) {
  const [range, setRange] = useState<HistoryRange>('24h');
  const [window, setWindow] = useState(() => windowEndingNow('24h'));
  const top = trpc.history.top.useQuery({ id: envId, ...window, by: 'totalTime', limit: 10 });
  const regressed = trpc.history.regressed.useQuery({ id: envId, ...window, threshold: 50, limit: 10 });
  const pick = (next: HistoryRange) => {
    setRange(next);
    setWindow(windowEndingNow(next));
  };

  return (
    <Card id="production-history-heading" title="Production History">
      <div className="history-toolbar">
        <RangePicker name="History range" value={range} onChange={pick} />
        <ReadingInterval envId={envId} seconds={intervalSeconds} effectiveSeconds={effectiveIntervalSeconds} />
      </div>
      <h3 className="history-subtitle">Top queries by total time</h3>
      <QueryTable
        query={top}
        loading="Loading top queries…"
        failed="Top queries could not be loaded"
        label="Top queries"
        columns={TOP_COLUMNS}
        empty={
          <EmptyState title={`No production calls in ${rangeLabel(range)}`}>
            With a production connection, pg_stat_statements is read on a schedule; points appear from the second reading on.
          </EmptyState>
        }
        row={(row) => (
          <tr key={row.hash}>
            <QueryCell envId={envId} query={row} />
            <td className="numeric">{formatNumber(row.calls)}</td>
            <td className="numeric">{formatDuration(row.totalTimeMs)}</td>
            <td className="numeric">{formatDuration(row.meanTimeMs)}</td>
          </tr>
        )}
      />
      <h3 className="history-subtitle">Regressed: mean time up more than 50% against the {rangeLabel(range).replace('the last', 'previous')}</h3>
      <QueryTable
        query={regressed}
        loading="Loading regressions…"
        failed="Regressions could not be loaded"
        label="Regressed queries"
        columns={REGRESSED_COLUMNS}
        empty={<p className="muted">No query got slower.</p>}
        row={(row) => (
          <tr key={row.hash}>
            <QueryCell envId={envId} query={row} />
            <td className="numeric">{formatDuration(row.previousMeanTimeMs)}</td>
            <td className="numeric">{formatDuration(row.meanTimeMs)}</td>
            <td className="numeric regressed">+{formatNumber(Math.round(row.changePercent))}%</td>
          </tr>
        )}
      />
    </Card>
  );
}
