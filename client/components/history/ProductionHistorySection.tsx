// The environment's production history: its heaviest queries in a range and the ones whose mean time
// rose by more than half against the range before, and how often production is read for it.
import { useState } from 'react';
import './history.css';
import { Link } from 'react-router-dom';
import type { HistoryRange } from '../../../shared/history';
import { Card } from '../Card';
import { EmptyState, ErrorState, Loading } from '../States';
import { queryPath } from '../../lib/paths';
import { formatDuration, formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { RangePicker, rangeLabel, windowEndingNow } from './RangePicker';
import { SnapshotInterval } from './SnapshotInterval';

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

function TopTable({ envId, rows }: { envId: string; rows: RouterOutputs['history']['top'] }) {
  return (
    <table className="data-table" aria-label="Top queries">
      <thead>
        <tr>
          <th scope="col">Query</th>
          <th scope="col" className="numeric">Calls</th>
          <th scope="col" className="numeric">Total time</th>
          <th scope="col" className="numeric">Mean</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.hash}>
            <QueryCell envId={envId} query={row} />
            <td className="numeric">{formatNumber(row.calls)}</td>
            <td className="numeric">{formatDuration(row.totalTimeMs)}</td>
            <td className="numeric">{formatDuration(row.meanTimeMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function RegressedTable({ envId, rows }: { envId: string; rows: RouterOutputs['history']['regressed'] }) {
  return (
    <table className="data-table" aria-label="Regressed queries">
      <thead>
        <tr>
          <th scope="col">Query</th>
          <th scope="col" className="numeric">Mean before</th>
          <th scope="col" className="numeric">Mean now</th>
          <th scope="col" className="numeric">Change</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.hash}>
            <QueryCell envId={envId} query={row} />
            <td className="numeric">{formatDuration(row.previousMeanTimeMs)}</td>
            <td className="numeric">{formatDuration(row.meanTimeMs)}</td>
            <td className="numeric regressed">+{formatNumber(Math.round(row.changePercent))}%</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function ProductionHistorySection({ envId, snapshotIntervalSeconds, effectiveSnapshotIntervalSeconds }: { envId: string; snapshotIntervalSeconds: number | null; effectiveSnapshotIntervalSeconds: number }) {
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
        <SnapshotInterval envId={envId} seconds={snapshotIntervalSeconds} effectiveSeconds={effectiveSnapshotIntervalSeconds} />
      </div>
      <h3 className="history-subtitle">Top queries by total time</h3>
      {top.isPending ? (
        <Loading label="Loading top queries…" />
      ) : top.isError ? (
        <ErrorState title="Top queries could not be loaded" error={top.error} onRetry={() => top.refetch()} />
      ) : top.data.length === 0 ? (
        <EmptyState title={`No production calls in ${rangeLabel(range)}`}>
          With a production connection, pg_stat_statements is read on a schedule; points appear from the second reading on.
        </EmptyState>
      ) : (
        <TopTable envId={envId} rows={top.data} />
      )}
      <h3 className="history-subtitle">Regressed: mean time up more than 50% against the {rangeLabel(range).replace('the last', 'previous')}</h3>
      {regressed.isPending ? (
        <Loading label="Loading regressions…" />
      ) : regressed.isError ? (
        <ErrorState title="Regressions could not be loaded" error={regressed.error} onRetry={() => regressed.refetch()} />
      ) : regressed.data.length === 0 ? (
        <p className="muted">No query got slower.</p>
      ) : (
        <RegressedTable envId={envId} rows={regressed.data} />
      )}
    </Card>
  );
}
