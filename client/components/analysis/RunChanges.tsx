// What a CI run changed under production statistics, compared with its baseline run: queries
// whose cost rose or that an index would now help; new queries as information.
import { Link } from 'react-router-dom';
import { environmentPath, queryPath } from '../../lib/paths';
import { formatCost, formatPercent } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge, type BadgeTone } from '../Badge';
import { BaselineLink } from '../ci/BaselineLink';
import { EmptyState, ErrorState, Loading } from '../States';
import { Arrow } from './QueryAnalysis';

type RunQuery = RouterOutputs['analysis']['ciRun']['queries'][number];
type Change = NonNullable<RunQuery['change']>;

const CHANGES: Record<Change, { label: string; tone: BadgeTone }> = {
  cost_rose: { label: 'Cost rose', tone: 'danger' },
  gained_recommendation: { label: 'Index recommended', tone: 'warning' },
  new_query: { label: 'New query', tone: 'neutral' },
};

function CostChange({ query }: { query: RunQuery }) {
  if (query.cost === null) return <span className="muted">not analyzed</span>;
  if (query.previousCost === null || query.previousCost === query.cost) return <>{formatCost(query.cost)}</>;
  const rise = query.previousCost > 0 ? ((query.cost - query.previousCost) / query.previousCost) * 100 : null;
  return (
    <span className="nowrap">
      {formatCost(query.previousCost)} <Arrow /> <strong>{formatCost(query.cost)}</strong>
      {rise !== null ? (
        <span className="muted small">
          {' '}
          ({rise > 0 ? '+' : '−'}
          {formatPercent(Math.abs(rise))})
        </span>
      ) : null}
    </span>
  );
}

function ChangesTable({ queries, envId, label }: { queries: RunQuery[]; envId: string | null; label: string }) {
  return (
    <div className="table-scroll">
      <table className="data-table queries-table" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Query</th>
            <th scope="col">Change</th>
            <th scope="col" className="numeric">
              Cost
            </th>
          </tr>
        </thead>
        <tbody>
          {queries.map((q) => {
            const change = q.change ? CHANGES[q.change] : null;
            const sql = (
              <pre className="sql sql-compact">
                <code>{q.formattedQuery}</code>
              </pre>
            );
            return (
              <tr key={q.hash}>
                <td className="query-cell">
                  {envId ? (
                    <Link to={queryPath(envId, q.hash)} className="query-link" aria-label={`Open query ${q.hash} in the catalog`}>
                      {sql}
                    </Link>
                  ) : (
                    sql
                  )}
                </td>
                <td>
                  {change ? <Badge tone={change.tone}>{change.label}</Badge> : null}
                  {q.change === 'gained_recommendation' && q.recommendationCount ? (
                    <span className="muted small block">
                      {formatNumber(q.recommendationCount)} index{q.recommendationCount === 1 ? '' : 'es'}
                    </span>
                  ) : null}
                </td>
                <td className="numeric">
                  <CostChange query={q} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

export function RunChanges({ runId, envId }: { runId: string; envId: string | null }) {
  const analysis = trpc.analysis.ciRun.useQuery({ id: runId });
  const title = (
    <h2 id="run-changes-heading" className="card-title">
      Production Analysis
    </h2>
  );
  if (analysis.isPending || analysis.isError) {
    return (
      <section className="card" aria-labelledby="run-changes-heading">
        {title}
        {analysis.isPending ? (
          <Loading label="Comparing with the baseline run…" />
        ) : (
          <ErrorState title="The comparison could not be loaded" error={analysis.error} onRetry={() => analysis.refetch()} />
        )}
      </section>
    );
  }
  const { baseline, queries } = analysis.data;
  const flagged = queries.filter((q) => q.change === 'cost_rose' || q.change === 'gained_recommendation');
  const added = queries.filter((q) => q.change === 'new_query');
  const analyzed = queries.some((q) => q.cost !== null);

  return (
    <section className="card" aria-labelledby="run-changes-heading">
      {title}
      <p className="muted">
        {baseline ? (
          <>
            <BaselineLink baseline={baseline} />.
          </>
        ) : (
          'No earlier run of this branch or of the default branch to compare with: queries an index would help are listed.'
        )}
      </p>
      {!analyzed ? (
        <EmptyState title="Nothing analyzed yet.">
          {envId ? (
            <>
              <Link to={environmentPath(envId)}>Analyze the environment</Link> to see this run&apos;s production costs.
            </>
          ) : (
            'This run is not in an environment, so its queries are not analyzed.'
          )}
        </EmptyState>
      ) : flagged.length === 0 ? (
        <EmptyState title={baseline ? 'No query got more expensive or gained an index recommendation.' : 'No query needs an index.'} />
      ) : (
        <>
          <h3 className="analysis-subtitle">
            Needs attention <span className="count">{formatNumber(flagged.length)}</span>
          </h3>
          <ChangesTable queries={flagged} envId={envId} label="Queries whose cost rose or that gained a recommendation" />
        </>
      )}
      {added.length > 0 ? (
        <>
          <h3 className="analysis-subtitle">
            New in this run <span className="count">{formatNumber(added.length)}</span>
          </h3>
          <p className="muted small">Not in the baseline run; for information.</p>
          <ChangesTable queries={added} envId={envId} label="Queries new since the baseline run" />
        </>
      ) : null}
    </section>
  );
}
