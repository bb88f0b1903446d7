// The environment's query catalog: most recently seen first, filtered by source and searched on the
// server, loaded page by page.
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { SOURCES } from '../../../shared/environments';
import { useDebouncedValue } from '../../hooks/useDebouncedValue';
import { nextOffset } from '../../lib/queries';
import { formatNumber } from '../../lib/time';
import { trpc } from '../../trpc';
import { SOURCE_LABELS } from '../Badge';
import { Card } from '../Card';
import { SearchField, SelectField } from '../Field';
import { EmptyState, ErrorState, Loading } from '../States';
import { CatalogTable, type CatalogEntry } from './CatalogTable';

type Source = (typeof SOURCES)[number];

const PAGE_SIZE = 500;
const SOURCE_OPTIONS = [{ value: '', label: 'All sources' }, ...SOURCES.map((s) => ({ value: s, label: SOURCE_LABELS[s] ?? s }))];

export function QueryCatalog({ envId }: { envId: string }) {
  const utils = trpc.useUtils();
  const [source, setSource] = useState<Source | ''>('');
  const [search, setSearch] = useState('');
  const q = useDebouncedValue(search.trim(), 250);

  const catalog = useInfiniteQuery({
    queryKey: ['catalog', envId, source, q],
    initialPageParam: 0,
    queryFn: ({ pageParam, signal }) =>
      utils.client.queries.list.query({ id: envId, source: source || undefined, q: q || undefined, limit: PAGE_SIZE, offset: pageParam }, { signal }),
    getNextPageParam: nextOffset(PAGE_SIZE),
    // keep showing this environment's rows while a new filter loads, never another environment's
    placeholderData: (previous, previousQuery) => (previousQuery?.queryKey[1] === envId ? previous : undefined),
  });
  const rows: CatalogEntry[] = catalog.data?.pages.flat() ?? [];
  // "500+" while more pages remain
  const count = catalog.data ? `${formatNumber(rows.length)}${catalog.hasNextPage ? '+' : ''}` : undefined;

  return (
    <Card id="catalog-heading" title="Query Catalog" count={count}>
      <div className="toolbar">
        <SelectField label="Source" value={source} onChange={(v) => setSource(v as Source | '')} options={SOURCE_OPTIONS} />
        <SearchField label="Search queries" value={search} onChange={setSearch} placeholder="Text in the SQL, or a fingerprint" layout="field-grow" />
      </div>
      {catalog.isPending ? (
        <Loading label="Loading the query catalog…" />
      ) : catalog.isError && rows.length === 0 ? (
        <ErrorState title="The query catalog could not be loaded" error={catalog.error} onRetry={() => catalog.refetch()} />
      ) : rows.length === 0 ? (
        source || q ? (
          <EmptyState title="No query matches these filters." />
        ) : (
          <EmptyState title="The catalog is empty.">Link a repository: the queries of its CI runs appear here as runs arrive.</EmptyState>
        )
      ) : (
        <CatalogTable envId={envId} rows={rows} paging={catalog} busy={catalog.isFetching} />
      )}
    </Card>
  );
}
