// Production's existing indexes that cost writes and disk without serving reads: never scanned
// since the statistics were reset, duplicates, prefixes of another index, invalid ones. Each with
// its size, its DROP statement and, from the latest analysis, the catalog queries that would plan
// dearer without it; "Safe to drop" only when none would.
import { formatCost } from '../../lib/plan';
import { formatExact, formatBytes, formatNumber } from '../../lib/time';
import { apiCodeOf } from '../../lib/errors';
import { retryUnlessNotFound } from '../../lib/queries';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge, type BadgeTone } from '../Badge';
import { Card } from '../Card';
import { CopyButton } from '../CopyButton';
import { Fact, Facts } from '../Facts';
import { RelativeTime } from '../RelativeTime';
import { SqlBlock } from '../SqlBlock';
import { EmptyState, ErrorState, Loading } from '../States';
import { QueryLink } from './IndexRecommendations';

type Health = RouterOutputs['analysis']['indexHealth'];
type Entry = Health['health']['indexes'][number];

const KIND_TONES: Record<Entry['kinds'][number], BadgeTone> = { invalid: 'danger', duplicate: 'warning', redundant: 'warning', unused: 'neutral' };

/** Slower queries listed under an index before "and N more". */
const SLOWER_SHOWN = 5;

function DropEffect({ envId, entry }: { envId: string; entry: Entry }) {
  const effect = entry.dropEffect;
  if (!effect) return entry.kinds.includes('invalid') ? <p className="muted">The planner never uses it: no query plans differently without it.</p> : null;
  if (effect.safeToDrop) {
    return (
      <p>
        <Badge tone="success">Safe to drop</Badge>{' '}
        <span className="muted">
          {effect.queriesUsing === 0
            ? 'No catalog query plans with it.'
            : `${formatNumber(effect.queriesUsing)} catalog ${effect.queriesUsing === 1 ? 'query reads it and plans' : 'queries read it and plan'} as cheaply without it.`}
        </span>
      </p>
    );
  }
  return (
    <div>
      {effect.error ? <p className="muted">{effect.error}</p> : null}
      {effect.slower.length ? (
        <>
          <p>
            Without it, {formatNumber(effect.slower.length)} catalog {effect.slower.length === 1 ? 'query plans' : 'queries plan'} dearer:
          </p>
          <ul className="helped-list" aria-label={`Queries slower without ${entry.name}`}>
            {effect.slower.slice(0, SLOWER_SHOWN).map((q) => (
              <li key={q.hash}>
                <QueryLink envId={envId} hash={q.hash} />{' '}
                <span className="muted">
                  cost {formatCost(q.costBefore)} → {formatCost(q.costAfter)}
                </span>
              </li>
            ))}
            {effect.slower.length > SLOWER_SHOWN ? <li className="muted">and {effect.slower.length - SLOWER_SHOWN} more</li> : null}
          </ul>
        </>
      ) : null}
    </div>
  );
}

/** The findings of one analysis, for display. */
export function IndexHealthList({ envId, health }: { envId: string; health: Health }) {
  const { indexes, statsReset } = health.health;
  const since = statsReset ? (
    <>
      since statistics were reset{' '}
      <time dateTime={statsReset} title={formatExact(statsReset)}>
        {formatExact(statsReset)}
      </time>
    </>
  ) : (
    'since the database was created (its statistics were never reset)'
  );
  return (
    <>
      <p className="muted">
        Scans counted {since}; read by the analysis of <RelativeTime value={health.analyzedAt} />. An index used only on a replica counts no scans here. Each
        index is tried alone: two that can stand in for each other may each be safe to drop, but not both.
      </p>
      {indexes.length === 0 ? (
        <EmptyState title="Every index earns its keep.">No index is unused, duplicated, redundant or invalid.</EmptyState>
      ) : (
        <ol className="index-list" aria-label="Indexes to review">
          {indexes.map((entry) => (
            <li key={`${entry.schema}.${entry.name}`} className="index-item" aria-label={`${entry.schema}.${entry.name}`}>
              <div className="index-head">
                <code>
                  {entry.schema}.{entry.name}
                </code>
                <span>
                  on <code>{entry.table}</code>
                </span>
                {entry.kinds.map((kind) => (
                  <Badge key={kind} tone={KIND_TONES[kind]}>
                    {kind}
                  </Badge>
                ))}
              </div>
              <p>{entry.reason}</p>
              <Facts small className="index-facts">
                <Fact term="Size">{formatBytes(entry.bytes)}</Fact>
                <Fact term="Scans">{entry.scans === null ? 'unknown' : formatNumber(entry.scans)}</Fact>
                {entry.coveredBy ? (
                  <Fact term="Served by">
                    <code>{entry.coveredBy}</code>
                  </Fact>
                ) : null}
              </Facts>
              <div className="index-head">
                <SqlBlock sql={entry.dropStatement} compact />
                <CopyButton text={entry.dropStatement} label={`Copy DROP statement for ${entry.name}`} />
              </div>
              <DropEffect envId={envId} entry={entry} />
            </li>
          ))}
        </ol>
      )}
    </>
  );
}

export function IndexHealthSection({ envId }: { envId: string }) {
  const health = trpc.analysis.indexHealth.useQuery({ id: envId }, { retry: retryUnlessNotFound });
  const notYet = health.isError && apiCodeOf(health.error) === 'not_found';
  return (
    <Card id="index-health-heading" title="Index Health" count={health.data ? health.data.health.indexes.length : undefined}>
      {health.isPending ? (
        <Loading label="Loading index health…" />
      ) : notYet ? (
        <EmptyState title="Not read yet.">Analyze reads production's index statistics and tries each droppable index against the catalog.</EmptyState>
      ) : health.isError ? (
        <ErrorState title="Index health could not be loaded" error={health.error} onRetry={() => health.refetch()} />
      ) : (
        <IndexHealthList envId={envId} health={health.data} />
      )}
    </Card>
  );
}
