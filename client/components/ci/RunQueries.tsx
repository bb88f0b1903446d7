// The queries one CI run reported, with its figures; each opens in its environment's catalog when
// the repository was linked when the run arrived.
import { Link } from 'react-router-dom';
import { queryPath } from '../../lib/paths';
import { formatDuration, formatNumber } from '../../lib/time';
import type { RouterOutputs } from '../../trpc';
import { Card } from '../Card';
import { SqlBlock } from '../SqlBlock';
import { EmptyState } from '../States';
import { DataTable } from '../DataTable';

type Run = RouterOutputs['ci']['get'];

const COLUMNS = ['Query', { label: 'Calls', className: 'numeric' }, { label: 'Mean time', className: 'numeric' }];

export function RunQueries({ run }: { run: Run }) {
  const envId = run.environment?.id;
  return (
    <Card id="run-queries-heading" title="Queries" count={formatNumber(run.queries.length)}>
      <DataTable
        label="Queries of this run"
        className="queries-table"
        columns={COLUMNS}
        rows={run.queries}
        empty={<EmptyState title="This run reported no queries." />}
        row={(query) => (
          <tr key={query.hash}>
            <td className="query-cell">
              {envId ? (
                <Link to={queryPath(envId, query.hash)} className="query-link" aria-label={`Open query ${query.hash} in the catalog`}>
                  <SqlBlock sql={query.formattedQuery} compact />
                </Link>
              ) : (
                <SqlBlock sql={query.formattedQuery} compact />
              )}
            </td>
            <td className="numeric">{query.calls === null ? '—' : formatNumber(query.calls)}</td>
            <td className="numeric">{query.meanTimeMs === null ? '—' : formatDuration(query.meanTimeMs)}</td>
          </tr>
        )}
      />
    </Card>
  );
}

/** The queries the API refused, by their position in the run and why. */
export function RejectedQueries({ rejected }: { rejected: Run['rejected'] }) {
  if (rejected.length === 0) return null;
  return (
    <div className="callout callout-warning">
      <p className="callout-title">
        {rejected.length} quer{rejected.length === 1 ? 'y was' : 'ies were'} rejected
      </p>
      <ul>
        {rejected.map((r) => (
          <li key={r.index}>
            #{r.index + 1}: {r.reason}
          </li>
        ))}
      </ul>
    </div>
  );
}
