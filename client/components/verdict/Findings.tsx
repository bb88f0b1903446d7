// What the verdict found, failing ones first: each query with its cost against the baseline, the
// index to create, what the run's schema changes for it, why its cost moved, and Acknowledge (or Undo).
import { Link } from 'react-router-dom';
import type { Finding, FindingKind, Verdict } from '../../../shared/policy';
import { queryPath } from '../../lib/paths';
import { formatCost, formatPercent } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { Arrow } from '../analysis/QueryAnalysis';
import { Badge } from '../Badge';
import { CallSites } from '../CallSites';
import { Card } from '../Card';
import { CopyButton } from '../CopyButton';
import { SqlBlock } from '../SqlBlock';
import { EmptyState } from '../States';
import { AcknowledgeButton, UndoAcknowledgeButton } from './Acknowledge';
import { FindingWhy } from './FindingWhy';

export const KIND_LABELS: Record<FindingKind, { label: string; explain: string }> = {
  cost_regression: { label: 'Cost regression', explain: 'Costs more than in the baseline run' },
  lost_index: { label: 'Lost index', explain: "Its production plan uses an index this run's schema drops" },
  new_query_needs_index: { label: 'New query needs an index', explain: 'Not in the baseline run, and an index would save most of its cost' },
  changed_query: {
    label: 'Changed query',
    explain: 'An edit of a baseline query this run no longer has (same call site, or a close parse tree); its cost is compared with that query',
  },
  new_query: { label: 'New query', explain: 'Not in the baseline run, nor an edit of one of its queries' },
  call_count_regression: {
    label: 'Called many more times',
    explain: "Runs at least the policy's ratio times as often as in the baseline run (an N+1 query: one query per row)",
  },
};

/** How often the baseline's tests and this run's executed the query (pg_stat_statements calls). */
function Calls({ finding }: { finding: Finding }) {
  if (finding.calls === null) return null;
  const { calls, baselineCalls } = finding;
  return (
    <span className="nowrap">
      <span className="muted">calls</span>{' '}
      {baselineCalls === null ? null : (
        <>
          {formatNumber(baselineCalls)} <Arrow />{' '}
        </>
      )}
      <strong>{formatNumber(calls)}</strong>
      {baselineCalls ? <Badge tone={calls > baselineCalls ? 'danger' : 'neutral'}>×{formatNumber(Math.round(calls / baselineCalls))}</Badge> : null}
    </span>
  );
}

function Cost({ finding }: { finding: Finding }) {
  if (finding.cost === null) return <span className="muted">cost unknown</span>;
  if (finding.baselineCost === null) {
    return (
      <span>
        <span className="muted">cost</span> <strong>{formatCost(finding.cost)}</strong>
      </span>
    );
  }
  const pct = finding.changePct;
  return (
    <span className="nowrap">
      <span className="muted">cost</span> {formatCost(finding.baselineCost)} <Arrow /> <strong>{formatCost(finding.cost)}</strong>
      {pct !== null && pct !== 0 ? (
        <Badge tone={pct > 0 ? 'danger' : 'success'}>
          {pct > 0 ? '+' : '−'}
          {formatPercent(Math.abs(pct))}
        </Badge>
      ) : null}
    </span>
  );
}

function FindingItem({ finding, envId }: { finding: Finding; envId: string | null }) {
  const kind = KIND_LABELS[finding.kind];
  const sql = <SqlBlock sql={finding.formattedQuery} compact />;
  return (
    <li className={`finding${finding.acknowledged ? ' finding-acknowledged' : ''}`} aria-label={`${kind.label}: query ${finding.hash}`}>
      <div className="finding-head">
        <Badge
          tone={finding.severity === 'fail' ? 'danger' : 'warning'}
          title={`This finding ${finding.severity === 'fail' ? 'fails' : 'warns about'} the run`}
        >
          {finding.severity === 'fail' ? 'Fails' : 'Warns'}
        </Badge>
        <span className="finding-kind" title={kind.explain}>
          {kind.label}
        </span>
        {finding.acknowledged ? <Badge tone="neutral">Acknowledged</Badge> : null}
        <span className="finding-cost">{finding.kind === 'call_count_regression' ? <Calls finding={finding} /> : <Cost finding={finding} />}</span>
        {envId ? (
          <span className="finding-actions">
            {finding.acknowledged ? <UndoAcknowledgeButton envId={envId} hash={finding.hash} /> : <AcknowledgeButton envId={envId} hash={finding.hash} />}
          </span>
        ) : null}
      </div>
      {envId ? (
        <Link to={queryPath(envId, finding.hash)} className="query-link" aria-label={`Open query ${finding.hash} in the catalog`}>
          {sql}
        </Link>
      ) : (
        sql
      )}
      {finding.pairedWith ? (
        <div className="finding-was" aria-label={`Replaces baseline query ${finding.pairedWith.hash}`}>
          <span className="muted small">
            Replaces baseline query <code>{finding.pairedWith.hash}</code>, which this run no longer has:
          </span>
          <SqlBlock sql={finding.pairedWith.formattedQuery} compact />
        </div>
      ) : null}
      <CallSites sites={finding.callSites} label="Where the query comes from" />
      {finding.schemaNotes.length > 0 ? (
        <ul className="finding-notes" aria-label="Schema notes">
          {finding.schemaNotes.map((note) => (
            <li key={note}>{note}</li>
          ))}
        </ul>
      ) : null}
      <FindingWhy finding={finding} />
      {finding.recommendations.length > 0 ? (
        <ul className="finding-indexes" aria-label="Indexes to create">
          {finding.recommendations.map((r) => (
            <li key={r.createIndex}>
              <div className="finding-index-head">
                <span className="muted small">
                  cost after {formatCost(r.costAfter)} · <Badge tone="success">{formatPercent(r.savedPct)} saved</Badge>
                </span>
                <CopyButton text={r.createIndex} label={`Copy ${r.createIndex}`} />
              </div>
              <SqlBlock sql={r.createIndex} compact />
            </li>
          ))}
        </ul>
      ) : null}
    </li>
  );
}

export function Findings({ verdict, envId }: { verdict: Verdict; envId: string | null }) {
  const { findings } = verdict;
  return (
    <Card id="findings-heading" title="Findings" count={formatNumber(findings.length)}>
      {findings.length === 0 ? (
        <EmptyState title="Nothing to report.">
          No query of this run regressed, needs an index, lost one, changed, or is new under this environment&apos;s policy.
        </EmptyState>
      ) : (
        <ol className="finding-list" aria-label="Findings, failing first">
          {findings.map((finding) => (
            <FindingItem key={`${finding.kind}:${finding.hash}`} finding={finding} envId={envId} />
          ))}
        </ol>
      )}
    </Card>
  );
}
