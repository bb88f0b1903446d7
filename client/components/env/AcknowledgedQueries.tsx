// Queries of the environment whose findings were acknowledged: listed, not counted, until their
// cost moves again, each with who acknowledged it. Undo makes their findings count from the next
// verdict read.
import { formatCost } from '../../lib/plan';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc } from '../../trpc';
import { Card } from '../Card';
import { RelativeTime } from '../RelativeTime';
import { EmptyState, Loaded } from '../States';
import { UndoAcknowledgeButton } from '../verdict/Acknowledge';
import { QueryLink } from './IndexRecommendations';

/**
 * Who acknowledged it: a person, a token ("ana@example.com (token "ci")"), or "local" on a
 * single-user server, where there is no one else to tell apart, so it says nothing.
 */
function AcknowledgedBy({ who }: { who: string | null }) {
  if (!who || who === 'local') return null;
  return (
    <>
      {' '}
      by <span className="ack-by">{who}</span>
    </>
  );
}

export function AcknowledgedQueries({ envId }: { envId: string }) {
  const acks = trpc.policy.acknowledgements.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  return (
    <Card id="acknowledged-heading" title="Acknowledged Queries" count={acks.data?.length}>
      <Loaded
        query={acks}
        loading="Loading acknowledged queries…"
        failed="Acknowledged queries could not be loaded"
        empty={
          <EmptyState title="No acknowledged queries.">
            Acknowledge a finding on a CI run&apos;s page and it stops failing runs until its cost moves.
          </EmptyState>
        }
      >
        {(rows) => (
          <ul className="ack-list" aria-label="Acknowledged queries">
            {rows.map((ack) => (
              <li key={ack.hash} aria-label={`Acknowledged query ${ack.hash}`}>
                <div className="ack-head">
                  <QueryLink envId={envId} hash={ack.hash} />
                  <UndoAcknowledgeButton envId={envId} hash={ack.hash} />
                </div>
                {ack.note ? <p className="ack-note">{ack.note}</p> : null}
                <p className="muted small">
                  <span title="The cost when acknowledged: it holds until the cost moves by more than the policy's percentage">
                    cost {ack.cost === null ? 'unknown' : formatCost(ack.cost)}
                  </span>{' '}
                  · acknowledged <RelativeTime value={ack.acknowledgedAt} />
                  <AcknowledgedBy who={ack.acknowledgedBy} />
                </p>
              </li>
            ))}
          </ul>
        )}
      </Loaded>
    </Card>
  );
}
