// The indexes an analysis recommends for an environment, most time saved first: each with its
// CREATE INDEX, what it saves, its size and the queries it helps.
import { Link } from 'react-router-dom';
import { queryPath } from '../../lib/paths';
import { formatCost } from '../../lib/plan';
import { oneLine } from '../../lib/text';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { indexSize, writeOverhead, writesTitle } from '../analysis/IndexCost';
import { Fact, Facts } from '../Facts';
import { IndexBadges } from '../IndexBadges';
import { SqlBlock } from '../SqlBlock';
import { EmptyState } from '../States';

/** Queries listed under an index before "and N more". */
const HELPED_SHOWN = 5;

/** A catalog query by its SQL on one line (its fingerprint until that loads), linking to its page. */
export function QueryLink({ envId, hash }: { envId: string; hash: string }) {
  const query = trpc.queries.get.useQuery({ id: envId, hash }, { staleTime: 60_000, retry: false });
  const sql = query.data ? oneLine(query.data.formattedQuery) : undefined;
  return (
    <Link to={queryPath(envId, hash)} className="helped-query" title={sql}>
      {sql ?? <code>{hash}</code>}
    </Link>
  );
}

export function IndexRecommendations({
  envId,
  indexes,
  queryCount,
}: {
  envId: string;
  indexes: RouterOutputs['analysis']['latest']['indexes'];
  queryCount: number;
}) {
  if (indexes.length === 0) {
    return (
      <EmptyState title="No index would help.">
        {queryCount === 0 ? 'The catalog had no queries to analyze.' : `Every one of the ${formatNumber(queryCount)} queries is already served well.`}
      </EmptyState>
    );
  }
  return (
    <ol className="index-list" aria-label="Recommended indexes, most time saved first">
      {indexes.map((index, rank) => (
        <li key={index.createIndex} className="index-item">
          <div className="index-head">
            <span className="index-rank" aria-label={`Rank ${rank + 1}`}>
              #{rank + 1}
            </span>
            <span>
              on <code>{index.table}</code>
            </span>
            <IndexBadges index={index} />
          </div>
          <SqlBlock sql={index.createIndex} compact />
          <Facts small className="index-facts">
            <Fact term="Total saved" title="Cost saved × production calls (1 call when unknown)">
              {formatCost(index.totalSaved)}
            </Fact>
            <Fact term="Size" title={`~${formatNumber(index.estimatedPages)} pages`}>
              {indexSize(index)}
            </Fact>
            <Fact term="Write overhead" title={writesTitle(index)}>
              {writeOverhead(index)}
            </Fact>
            <Fact term="Queries helped" className="index-queries">
              <ul className="helped-list">
                {index.queries.slice(0, HELPED_SHOWN).map((hash) => (
                  <li key={hash}>
                    <QueryLink envId={envId} hash={hash} />
                  </li>
                ))}
                {index.queries.length > HELPED_SHOWN ? <li className="muted small">and {formatNumber(index.queries.length - HELPED_SHOWN)} more</li> : null}
              </ul>
            </Fact>
          </Facts>
        </li>
      ))}
    </ol>
  );
}
