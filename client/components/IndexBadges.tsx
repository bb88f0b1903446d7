import type { Recommendation } from '../../shared/analysis';
import { Badge } from './Badge';

/** What kind of index a recommendation creates: its method, and whether it is partial or covering. */
export function IndexBadges({ index }: { index: Pick<Recommendation, 'method' | 'predicate' | 'include'> }) {
  return (
    <>
      <Badge tone="accent">{index.method === 'gin' ? 'GIN' : 'B-tree'}</Badge>
      {index.predicate ? <Badge>partial</Badge> : null}
      {index.include.length > 0 ? <Badge>covering</Badge> : null}
    </>
  );
}
