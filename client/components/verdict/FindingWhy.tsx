// Why a finding's cost moved: its causes, each with its evidence, the plan diff in a few lines, and
// the baseline's plan beside this run's, the steps that differ marked and the step whose cost moved
// most highlighted. Folded until asked for: the finding's line already says what happened.
import type { Finding } from '../../../shared/policy';
import { mostMovedStep } from '../../../shared/plan-diff';
import { formatCost } from '../../lib/plan';
import { PlanTree } from '../analysis/PlanTree';
import { Badge } from '../Badge';

const CAUSE_LABELS: Record<Finding['causes'][number]['kind'], string> = {
  schema: 'Schema change',
  query_changed: 'Query changed',
  no_statistics: 'No statistics',
  plan_choice: "Planner's choice",
};

export function FindingWhy({ finding }: { finding: Finding }) {
  const { causes, planDiff, plan, baselinePlan } = finding;
  const lines = planDiff?.summary ?? [];
  if (causes.length === 0 && lines.length === 0 && !plan) return null;
  const most = mostMovedStep(baselinePlan, plan);
  const title = causes.length > 0 ? `Why: ${causes.map((c) => CAUSE_LABELS[c.kind].toLowerCase()).join(', ')}` : 'Plan';
  return (
    <details className="finding-why">
      <summary>{title}</summary>
      {causes.length > 0 ? (
        <ul className="finding-causes" aria-label="Causes">
          {causes.map((cause) => (
            <li key={`${cause.kind}:${cause.object ?? cause.detail}`}>
              <Badge tone={cause.kind === 'plan_choice' ? 'neutral' : 'warning'}>{CAUSE_LABELS[cause.kind]}</Badge> {cause.detail}
            </li>
          ))}
        </ul>
      ) : null}
      {lines.length > 0 ? (
        <ul className="plan-diff-lines" aria-label="Plan changes">
          {lines.map((line) => (
            <li key={line}>
              <code>{line}</code>
            </li>
          ))}
        </ul>
      ) : null}
      {plan && baselinePlan ? (
        <div className="plans">
          <div className="plan-panel">
            <h3>Baseline plan</h3>
            <p className="muted small">cost {formatCost(baselinePlan['Total Cost'])}</p>
            <PlanTree plan={baselinePlan} compareWith={plan} highlight={most?.before ?? null} label={`Baseline plan of query ${finding.hash}`} />
          </div>
          <div className="plan-panel">
            <h3>This run&apos;s plan</h3>
            <p className="muted small">cost {formatCost(plan['Total Cost'])}</p>
            <PlanTree plan={plan} compareWith={baselinePlan} highlight={most?.after ?? null} label={`This run's plan of query ${finding.hash}`} />
          </div>
        </div>
      ) : plan ? (
        <PlanTree plan={plan} label={`This run's plan of query ${finding.hash}`} />
      ) : null}
    </details>
  );
}
