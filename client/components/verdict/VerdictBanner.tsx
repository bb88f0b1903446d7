// The verdict of a CI run at the top of its page: what it is, why, against what it was judged,
// and while the analysis runs, how far it got.
import { Link } from 'react-router-dom';
import type { Verdict } from '../../../shared/policy';
import { environmentPath } from '../../lib/paths';
import { formatNumber } from '../../lib/time';
import { RelativeTime } from '../RelativeTime';
import { BaselineLink } from '../ci/BaselineLink';

const TITLES: Record<Verdict['status'], string> = {
  pass: 'Passed',
  warn: 'Passed with warnings',
  fail: 'Failed',
  pending: 'Analyzing against production',
  unavailable: 'No verdict',
};

/** The pending verdict's progress lives in its reason ("Analyzing: 12 of 50 queries planned"). */
export function progressOf(reason: string | null): { done: number; total: number } | null {
  const match = /(\d+) of (\d+)/.exec(reason ?? '');
  return match ? { done: Number(match[1]), total: Number(match[2]) } : null;
}

function plural(count: number, one: string, many = `${one}s`) {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}

/** "3 failing, 1 warning, 2 acknowledged" over the findings. */
function countsOf(verdict: Verdict): string {
  const open = verdict.findings.filter((f) => !f.acknowledged);
  const parts = [];
  const failing = open.filter((f) => f.severity === 'fail').length;
  const warning = open.filter((f) => f.severity === 'warn').length;
  const acknowledged = verdict.findings.length - open.length;
  if (failing) parts.push(plural(failing, 'failing finding'));
  if (warning) parts.push(plural(warning, 'warning'));
  if (acknowledged) parts.push(`${formatNumber(acknowledged)} acknowledged`);
  return parts.length > 0 ? parts.join(', ') : 'No findings';
}

function Summary({ verdict, envId }: { verdict: Verdict; envId: string | null }) {
  const { summary, baseline } = verdict;
  return (
    <>
      <p className="verdict-line">
        <strong>{countsOf(verdict)}</strong>
        <span className="muted">
          {' '}
          · {plural(summary.queries, 'query', 'queries')}
          {baseline ? `, ${formatNumber(summary.newQueries)} new` : ''}
        </span>
      </p>
      {verdict.plannedOn ? (
        // the rule every verdict keeps: production's growth is never blamed on the run
        <p className="verdict-line muted small">{verdict.plannedOn.charAt(0).toUpperCase() + verdict.plannedOn.slice(1)}</p>
      ) : null}
      {verdict.statements.run !== null ? (
        <p className="verdict-line muted small" aria-label="Statements executed">
          Statements executed by the tests: {verdict.statements.baseline !== null ? `${formatNumber(verdict.statements.baseline)} in the baseline → ` : ''}
          <strong>{formatNumber(verdict.statements.run)}</strong>
          {verdict.statements.baseline !== null ? ' in this run' : ''}
        </p>
      ) : null}
      <p className="verdict-line muted small">
        {baseline ? (
          <>
            <BaselineLink baseline={baseline} />
          </>
        ) : (
          'No baseline run'
        )}
        {verdict.snapshotAt ? (
          <>
            {' '}
            · production statistics read <RelativeTime value={verdict.snapshotAt} />
          </>
        ) : null}
        {envId ? (
          <>
            {' '}
            · <Link to={`${environmentPath(envId)}#policy`}>policy</Link>
          </>
        ) : null}
      </p>
      <NoteList title="Not applied from this run’s schema:" notes={verdict.schemaNotes} />
      {/* the role of the production connection may not read these tables' statistics: each says the fix */}
      <NoteList title="Planned without production column statistics:" notes={verdict.warnings ?? []} />
    </>
  );
}

function NoteList({ title, notes }: { title: string; notes: readonly string[] }) {
  if (notes.length === 0) return null;
  return (
    <div className="verdict-line small">
      <strong>{title}</strong>
      <ul className="verdict-notes">
        {notes.map((note) => (
          <li key={note}>{note}</li>
        ))}
      </ul>
    </div>
  );
}

export function VerdictBanner({ verdict, envId }: { verdict: Verdict; envId: string | null }) {
  const { status, reason } = verdict;
  const progress = status === 'pending' ? progressOf(reason) : null;
  return (
    <section className={`verdict verdict-${status}`} aria-label={`Verdict: ${TITLES[status]}`} aria-busy={status === 'pending'}>
      <h2 className="verdict-title">
        {status === 'pending' ? <span className="spinner" aria-hidden="true" /> : <span className="verdict-mark" aria-hidden="true" />}
        <span className="visually-hidden">Verdict: </span>
        {TITLES[status]}
      </h2>
      {reason ? (
        <p className="verdict-reason" aria-live={status === 'pending' ? 'polite' : undefined}>
          {reason}
        </p>
      ) : null}
      {status === 'pending' ? (
        <progress
          className="progress"
          aria-label="Verdict progress"
          aria-valuetext={reason ?? undefined}
          max={progress && progress.total > 0 ? progress.total : undefined}
          value={progress && progress.total > 0 ? progress.done : undefined}
        />
      ) : null}
      {status === 'pass' || status === 'warn' || status === 'fail' ? <Summary verdict={verdict} envId={envId} /> : null}
    </section>
  );
}
