// A query's production history on its page: calls and mean time per reading over a chosen range.
import { useState } from 'react';
import type { HistoryRange } from '../../../shared/history';
import { Card } from '../Card';
import { EmptyState, ErrorState, Loading } from '../States';
import { formatDuration, formatNumber } from '../../lib/time';
import { trpc } from '../../trpc';
import { HistoryChart } from './HistoryChart';
import { RangePicker, rangeLabel, windowEndingNow } from './RangePicker';

export function QueryHistory({ envId, hash }: { envId: string; hash: string }) {
  const [range, setRange] = useState<HistoryRange>('24h');
  const [window, setWindow] = useState(() => windowEndingNow('24h'));
  const history = trpc.history.query.useQuery({ id: envId, hash, ...window });
  const pick = (next: HistoryRange) => {
    setRange(next);
    setWindow(windowEndingNow(next));
  };

  const points = history.data ?? [];
  const calls = points.reduce((sum, p) => sum + p.calls, 0);
  const totalTimeMs = points.reduce((sum, p) => sum + p.totalTimeMs, 0);

  return (
    <Card id="history-heading" title="Production History">
      <div className="history-toolbar">
        <RangePicker name="History range" value={range} onChange={pick} />
        {points.length > 0 ? (
          <p className="muted" aria-live="polite">
            {formatNumber(calls)} calls, mean {formatDuration(calls > 0 ? totalTimeMs / calls : 0)} over {rangeLabel(range)}
          </p>
        ) : null}
      </div>
      {history.isPending ? (
        <Loading label="Loading history…" />
      ) : history.isError ? (
        <ErrorState title="History could not be loaded" error={history.error} onRetry={() => history.refetch()} />
      ) : points.length === 0 ? (
        <EmptyState title={`No production calls in ${rangeLabel(range)}`}>
          Production&apos;s pg_stat_statements is read on a schedule (every 10 minutes unless the environment says otherwise); points appear from the second
          reading on.
        </EmptyState>
      ) : (
        <HistoryChart points={points} label={`Calls and mean time per reading over ${rangeLabel(range)}`} />
      )}
    </Card>
  );
}
