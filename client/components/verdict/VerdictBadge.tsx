// A CI run's verdict in one word, coloured like its banner: for the runs list and headings.
import type { VerdictStatus } from '../../../shared/policy';
import { Badge, type BadgeTone } from '../Badge';

export const VERDICT_LOOKS: Record<VerdictStatus, { label: string; tone: BadgeTone; title: string }> = {
  pass: { label: 'Pass', tone: 'success', title: 'Verdict: no finding fails or warns under the policy' },
  warn: { label: 'Warn', tone: 'warning', title: 'Verdict: findings that warn, none that fail' },
  fail: { label: 'Fail', tone: 'danger', title: 'Verdict: at least one finding fails the run' },
  pending: { label: 'Analyzing', tone: 'accent', title: 'Verdict: the run is being analyzed against production' },
  unavailable: { label: 'No verdict', tone: 'neutral', title: 'No verdict: the environment has no production connection, or the analysis failed' },
};

export function VerdictBadge({ status }: { status: VerdictStatus }) {
  const look = VERDICT_LOOKS[status];
  return (
    <Badge tone={look.tone} title={look.title}>
      <span className="visually-hidden">Verdict: </span>
      {look.label}
    </Badge>
  );
}
