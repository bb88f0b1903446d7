// The rows of the query catalog as one ARIA table, virtualized: only the rows in view are in the
// page, so 10,000 rows scroll as smoothly as 10. Scrolling near the end asks for the next page.
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { queryPath } from '../../lib/paths';
import { formatCost } from '../../lib/plan';
import { oneLine } from '../../lib/text';
import { formatNumber } from '../../lib/time';
import type { RouterOutputs } from '../../trpc';
import { Badge, SOURCE_LABELS, sourceTone } from '../Badge';
import { RelativeTime } from '../RelativeTime';

export type CatalogEntry = RouterOutputs['queries']['list'][number];

const ROW_HEIGHT = 52;
/** How close to the last loaded row the next page is asked for. */
const PREFETCH_ROWS = 100;

interface Paging {
  hasNextPage: boolean;
  isFetchingNextPage: boolean;
  fetchNextPage: () => unknown;
}

export function CatalogTable({ envId, rows, paging, busy }: { envId: string; rows: CatalogEntry[]; paging: Paging; busy: boolean }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
    getItemKey: (index) => rows[index]?.id ?? index,
  });
  const items = virtualizer.getVirtualItems();
  const lastIndex = items.at(-1)?.index ?? -1;

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = paging;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - PREFETCH_ROWS) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, lastIndex, rows.length]);

  return (
    // the row count is unknown (-1) while more pages remain; the header is row 1
    <div className="catalog" role="table" aria-label="Query catalog" aria-rowcount={hasNextPage ? -1 : rows.length + 1} aria-busy={busy}>
      <div role="rowgroup">
        <div role="row" className="catalog-row catalog-head" aria-rowindex={1}>
          <div role="columnheader">Query</div>
          <div role="columnheader">Source</div>
          <div role="columnheader" className="numeric">
            CI Runs
          </div>
          <div role="columnheader" className="numeric" title="Estimated production cost from the latest analysis">
            Cost
          </div>
          <div role="columnheader" aria-sort="descending">
            Last Seen
          </div>
        </div>
      </div>
      <div ref={scrollRef} className="catalog-scroll" role="rowgroup" data-testid="catalog-scroll">
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => (
            <CatalogRow key={item.key} envId={envId} entry={rows[item.index]!} index={item.index} start={item.start} measure={virtualizer.measureElement} />
          ))}
        </div>
      </div>
      <p className="catalog-foot muted" aria-live="polite">
        {isFetchingNextPage ? 'Loading more…' : hasNextPage ? `${formatNumber(rows.length)} loaded, scroll for more` : `${formatNumber(rows.length)} queries`}
      </p>
    </div>
  );
}

/** Shown on rows the latest analysis found an index for. */
function RecommendationBadge({ count }: { count: number | null }) {
  if (!count) return null;
  return (
    <Badge tone="warning" title="The latest analysis found an index that lowers this query's cost">
      {count === 1 ? 'Index recommended' : `${count} indexes recommended`}
    </Badge>
  );
}

/** One query, placed at its offset in the scrolled list; a click anywhere on it opens the query. */
function CatalogRow({
  envId,
  entry,
  index,
  start,
  measure,
}: {
  envId: string;
  entry: CatalogEntry;
  index: number;
  start: number;
  measure: (element: HTMLElement | null) => void;
}) {
  const navigate = useNavigate();
  return (
    <div
      role="row"
      aria-rowindex={index + 2}
      data-index={index}
      ref={measure}
      className="catalog-row catalog-item"
      style={{ transform: `translateY(${start}px)` }}
      onClick={(event) => {
        if ((event.target as HTMLElement).closest('a')) return;
        navigate(queryPath(envId, entry.hash));
      }}
    >
      <div role="cell" className="catalog-query">
        <Link to={queryPath(envId, entry.hash)} title={entry.formattedQuery}>
          {oneLine(entry.formattedQuery)}
        </Link>
        <RecommendationBadge count={entry.recommendationCount} />
      </div>
      <div role="cell">
        <Badge tone={sourceTone(entry.lastSeenSource)}>{SOURCE_LABELS[entry.lastSeenSource] ?? entry.lastSeenSource}</Badge>
      </div>
      <div role="cell" className="numeric">
        <span className="cell-label">CI runs </span>
        {formatNumber(entry.ciRunCount)}
      </div>
      <div role="cell" className="numeric">
        <span className="cell-label">Cost </span>
        {entry.cost === null ? <span title="Not analyzed yet">—</span> : formatCost(entry.cost)}
      </div>
      <div role="cell" className="nowrap">
        <RelativeTime value={entry.lastSeenAt} />
      </div>
    </div>
  );
}
