// A query under production statistics: its cost, the indexes that would lower it, and the plan
// before and after them, side by side with the steps that change marked.
import { Link } from 'react-router-dom';
import { apiCodeOf } from '../../lib/errors';
import { environmentPath } from '../../lib/paths';
import { formatCost, formatPercent } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge } from '../Badge';
import { CopyButton } from '../CopyButton';
import { RelativeTime } from '../RelativeTime';
import { SqlBlock } from '../SqlBlock';
import { EmptyState, ErrorState, Loading } from '../States';
import { indexSize, writeOverhead, writesTitle } from './IndexCost';
import { PlanTree } from './PlanTree';

type Analysis = RouterOutputs['analysis']['query'];

/** "→", read as "to". */
export function Arrow() {
  return (
    <>
      <span aria-hidden="true">→</span>
      <span className="visually-hidden">to</span>
    </>
  );
}

function Recommendations({ analysis }: { analysis: Analysis }) {
  if (analysis.recommendations.length === 0) {
    return <EmptyState title="No index would lower this query's cost." />;
  }
  return (
    <ol className="index-list" aria-label="Recommended indexes for this query">
      {analysis.recommendations.map((r) => (
        <li key={r.createIndex} className="index-item">
          <div className="index-head">
            <span>
              on <code>{r.table}</code>
            </span>
            <Badge tone="accent">{r.method === 'gin' ? 'GIN' : 'B-tree'}</Badge>
            {r.predicate ? <Badge>partial</Badge> : null}
            {r.include.length > 0 ? <Badge>covering</Badge> : null}
            <span className="index-copy">
              <CopyButton text={r.createIndex} label={`Copy CREATE INDEX on ${r.table}`} />
            </span>
          </div>
          <SqlBlock sql={r.createIndex} compact />
          <p className="cost-change">
            <span className="muted">cost</span> {formatCost(r.costBefore)} <Arrow /> <strong>{formatCost(r.costAfter)}</strong>{' '}
            <Badge tone="success">{formatPercent(r.savedPct)} saved</Badge>
            <span className="muted small">
              {' '}
              · total saved {formatCost(r.totalSaved)} · {indexSize(r)} · <span title={writesTitle(r)}>writes to the table: {writeOverhead(r)}</span>
            </span>
          </p>
        </li>
      ))}
    </ol>
  );
}

function Plans({ analysis }: { analysis: Analysis }) {
  const { plan, planAfter } = analysis;
  if (!plan) return <EmptyState title="No plan: the query could not be planned." />;
  if (!planAfter) {
    return (
      <>
        <p className="muted">No recommended index changes this plan.</p>
        <h3>Production plan</h3>
        <PlanTree plan={plan} label="Production plan" />
      </>
    );
  }
  return (
    <div className="plans">
      <div className="plan-panel">
        <h3>Production plan now</h3>
        <p className="muted small">cost {formatCost(plan['Total Cost'])}</p>
        <PlanTree plan={plan} compareWith={planAfter} label="Production plan now" />
      </div>
      <div className="plan-panel">
        <h3>With the recommended indexes</h3>
        <p className="muted small">cost {formatCost(planAfter['Total Cost'])}</p>
        <PlanTree plan={planAfter} compareWith={plan} label="Plan with the recommended indexes" />
      </div>
    </div>
  );
}

export function QueryAnalysis({ envId, hash }: { envId: string; hash: string }) {
  const analysis = trpc.analysis.query.useQuery({ id: envId, hash }, { retry: (count, error) => apiCodeOf(error) !== 'not_found' && count < 1 });

  if (analysis.isPending || analysis.isError) {
    return (
      <section className="card" aria-labelledby="analysis-heading">
        <h2 id="analysis-heading" className="card-title">
          Production Analysis
        </h2>
        {analysis.isPending ? (
          <Loading label="Loading the analysis…" />
        ) : apiCodeOf(analysis.error) === 'not_found' ? (
          <EmptyState title="This query has not been analyzed yet.">
            <Link to={environmentPath(envId)}>Analyze the environment</Link> to see its production plan, cost and the indexes that would help.
          </EmptyState>
        ) : (
          <ErrorState title="The analysis could not be loaded" error={analysis.error} onRetry={() => analysis.refetch()} />
        )}
      </section>
    );
  }

  const data = analysis.data;
  const costWith = data.planAfter?.['Total Cost'];
  return (
    <>
      <section className="card" aria-labelledby="analysis-heading">
        <h2 id="analysis-heading" className="card-title">
          Production Analysis
        </h2>
        <dl className="facts">
          <div>
            <dt>Production cost</dt>
            <dd>{data.cost === null ? '—' : formatCost(data.cost)}</dd>
          </div>
          {data.recommendations.length > 0 ? (
            <div>
              <dt>With the indexes</dt>
              <dd>{costWith === undefined ? '—' : formatCost(costWith)}</dd>
            </div>
          ) : null}
          <div>
            <dt>Plan</dt>
            <dd className="small">{data.planShape ?? '—'}</dd>
          </div>
          <div>
            <dt>Analyzed</dt>
            <dd>
              <RelativeTime value={data.analyzedAt} />
            </dd>
          </div>
        </dl>
        {data.warnings?.length ? (
          <div className="callout callout-warning" role="status">
            <p className="callout-title">Planned without some of production's statistics</p>
            <ul className="callout-message">
              {data.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {data.error ? (
          <div className="callout callout-warning" role="alert">
            <p className="callout-title">This query could not be fully analyzed</p>
            <p className="callout-message">{data.error}</p>
          </div>
        ) : null}
      </section>
      <section className="card" aria-labelledby="recommendations-heading">
        <h2 id="recommendations-heading" className="card-title">
          Index Recommendations {data.recommendations.length > 0 ? <span className="count">{formatNumber(data.recommendations.length)}</span> : null}
        </h2>
        <Recommendations analysis={data} />
      </section>
      <section className="card" aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="card-title">
          Plans
        </h2>
        <Plans analysis={data} />
      </section>
    </>
  );
}
