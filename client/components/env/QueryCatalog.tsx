// The environment's query catalog: most recently seen first, filtered and searched on the server,
// loaded page by page and virtualized, so 10,000 rows scroll as smoothly as 10.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router-dom';
import { SOURCES } from '../../../shared/environments';
import { useDebouncedValue } from '../../hooks/useDebouncedValue';
import { queryPath } from '../../lib/paths';
import { formatCost } from '../../lib/plan';
import { formatNumber } from '../../lib/time';
import { trpc, type RouterOutputs } from '../../trpc';
import { Badge, SOURCE_LABELS, sourceTone } from '../Badge';
import { SelectField } from '../Field';
import { RelativeTime } from '../RelativeTime';
import { EmptyState, ErrorState, Loading } from '../States';

type Entry = RouterOutputs['queries']['list'][number];
type Source = (typeof SOURCES)[number];

export const CATALOG_PAGE_SIZE = 500;
const ROW_HEIGHT = 52;

const SOURCE_OPTIONS = [{ value: '', label: 'All sources' }, ...SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] ?? s }))];

/** The SQL on one line, for the table; the query's page shows it formatted. */
const oneLine = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/** Shown on rows the latest analysis found an index for. */
export function RecommendationBadge({ count }: { count: number | null }) {
  if (!count) return null;
  return (
    <Badge tone="warning" title="The latest analysis found an index that lowers this query's cost">
      {count === 1 ? 'Index recommended' : `${count} indexes recommended`}
    </Badge>
  );
}

export function QueryCatalog({ envId }: { envId: string }) {
  const utils = trpc.useUtils();
  const navigate = useNavigate();
  const [source, setSource] = useState<Source | ''>('');
  const [search, setSearch] = useState('');
  const q = useDebouncedValue(search.trim(), 250);

  const catalog = useInfiniteQuery({
    queryKey: ['catalog', envId, source, q],
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) =>
      utils.client.queries.list.query(
        { id: envId, source: source || undefined, q: q || undefined, limit: CATALOG_PAGE_SIZE, offset: pageParam },
        { signal },
      ),
    getNextPageParam: (lastPage, _pages, lastOffset) => (lastPage.length < CATALOG_PAGE_SIZE ? undefined : lastOffset + CATALOG_PAGE_SIZE),
    // keep showing this environment's rows while a new filter loads, never another environment's
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === envId ? previous : undefined),
  });

  const rows: Entry[] = catalog.data?.pages.flat() ?? [];
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

  const { hasNextPage, isFetchingNextPage, fetchNextPage } = catalog;
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= rows.length - 100) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage, lastIndex, rows.length]);

  const filtered = Boolean(source || q);

  return (
    <section className="card" aria-labelledby="catalog-heading">
      <h2 id="catalog-heading" className="card-title">
        Query Catalog{' '}
        {catalog.data ? (
          <span className="count">
            {formatNumber(rows.length)}
            {hasNextPage ? '+' : ''}
          </span>
        ) : null}
      </h2>
      <div className="toolbar">
        <SelectField label="Source" value={source} onChange={(v) => setSource(v as Source | '')} options={SOURCE_OPTIONS} />
        <div className="field field-grow">
          <label htmlFor={`catalog-search-${envId}`}>Search queries</label>
          <input
            id={`catalog-search-${envId}`}
            className="input"
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            placeholder="Text in the SQL, or a fingerprint"
          />
        </div>
      </div>
      {catalog.isPending ? (
        <Loading label="Loading the query catalog…" />
      ) : catalog.isError && rows.length === 0 ? (
        <ErrorState title="The query catalog could not be loaded" error={catalog.error} onRetry={() => catalog.refetch()} />
      ) : rows.length === 0 ? (
        filtered ? (
          <EmptyState title="No query matches these filters." />
        ) : (
          <EmptyState title="The catalog is empty.">Link a repository: the queries of its CI runs appear here as runs arrive.</EmptyState>
        )
      ) : (
        <div className="catalog" role="table" aria-label="Query catalog" aria-rowcount={hasNextPage ? -1 : rows.length + 1} aria-busy={catalog.isFetching}>
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
              {items.map((item) => {
                const entry = rows[item.index]!;
                return (
                  <div
                    key={item.key}
                    role="row"
                    aria-rowindex={item.index + 2}
                    data-index={item.index}
                    ref={virtualizer.measureElement}
                    className="catalog-row catalog-item"
                    style={{ transform: `translateY(${item.start}px)` }}
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
              })}
            </div>
          </div>
          <p className="catalog-foot muted" aria-live="polite">
            {isFetchingNextPage ? 'Loading more…' : hasNextPage ? `${formatNumber(rows.length)} loaded, scroll for more` : `${formatNumber(rows.length)} queries`}
          </p>
        </div>
      )}
    </section>
  );
}
