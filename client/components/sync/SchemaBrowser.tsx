// The synced schema: its schemas on the left (schemas of the same structure as one entry, "t1 … t10:
// 10 schemas of the same 893 tables"), the chosen one's objects on the right, or those matching a
// search across the database (each group searched once). Both lists are virtualized, and the
// objects come a page at a time from the schema's source as they scroll into view: a database of a
// hundred thousand tables costs the page what it shows.
import { QueryClient, QueryClientProvider, useQueries, useQuery } from '@tanstack/react-query';
import { observeElementRect, useVirtualizer, type VirtualItem } from '@tanstack/react-virtual';
import { useDeferredValue, useMemo, useRef, useState, type ReactNode } from 'react';
import type { ObjectCounts, ObjectsResponse, SchemaObject, SchemaSummary, SchemaSummaryEntry } from '../../../shared/analyzer-schema';
import type { ObjectsScope } from '../../lib/analyzer';
import { formatNumber } from '../../lib/time';
import { SearchField } from '../Field';
import { EmptyState } from '../States';
import { ExtensionItem, FunctionItem, SequenceItem, TableItem, TriggerItem, TypeItem, ViewItem } from './SchemaObjects';
import { objectKey } from './schema-search';
import type { SchemaSource } from './schema-source';
import './schema-browser.css';

const KINDS: { kind: keyof ObjectCounts; title: string }[] = [
  { kind: 'table', title: 'Tables' },
  { kind: 'view', title: 'Views' },
  { kind: 'function', title: 'Functions' },
  { kind: 'type', title: 'Types' },
  { kind: 'trigger', title: 'Triggers' },
  { kind: 'sequence', title: 'Sequences' },
];

/** Objects asked for at once. */
const PAGE_SIZE = 100;

/** Schemas named in a search request at most (the analyzer takes a body of 64 kB). */
const SEARCHED_SCHEMAS_MAX = 500;

/** An entry of the schema list: one schema, or a group of schemas of the same structure. */
interface SchemaEntry {
  key: string;
  /** The schema whose objects are shown (a group's first). */
  schema: string;
  /** The schemas it stands for (one, or a group's). */
  schemas: string[];
  counts: SchemaSummaryEntry['counts'];
}

/** Names as people count them: t2 before t10. */
const natural = new Intl.Collator('en', { numeric: true }).compare;

function schemaEntries(summary: SchemaSummary): SchemaEntry[] {
  const groups = new Map(summary.groups.map((g) => [g.id, [...g.schemas].sort(natural)]));
  const entries: SchemaEntry[] = [];
  for (const schema of summary.schemas) {
    const members = schema.group ? groups.get(schema.group) : undefined;
    if (members && members[0] !== schema.name) continue;
    entries.push({
      key: members ? `group:${schema.group}` : `schema:${schema.name}`,
      schema: schema.name,
      schemas: members ?? [schema.name],
      counts: schema.counts,
    });
  }
  return entries.sort((a, b) => natural(a.schema, b.schema));
}

const plural = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;
const range = (schemas: string[]) => (schemas.length === 1 ? schemas[0]! : `${schemas[0]} … ${schemas.at(-1)}`);
const objectCount = (counts: SchemaEntry['counts']) => counts.tables + counts.views + counts.functions + counts.types + counts.triggers + counts.sequences;

/** Lays the rows out in jsdom too (no layout: every size reads 0) by assuming a window of 600 px. */
const observeRect: typeof observeElementRect = (instance, callback) =>
  observeElementRect(instance, (rect) => callback(rect.height > 0 ? rect : { width: rect.width || 800, height: 600 }));

/** An item of a virtualized list, placed at its offset and measured where it is (items differ in height). */
function VirtualRow({ item, measure, children }: { item: VirtualItem; measure: (element: HTMLElement | null) => void; children: ReactNode }) {
  return (
    <div role="listitem" className="virtual-row" data-index={item.index} ref={measure} style={{ transform: `translateY(${item.start}px)` }}>
      {children}
    </div>
  );
}

/**
 * The browser keeps the pages it fetched in a cache of its own (not the app's): they belong to one
 * sync, live with it, and go a minute after they scrolled out of view.
 */
export function SchemaBrowser({ source }: { source: SchemaSource }) {
  const [client] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: Infinity, gcTime: 60_000, retry: 1, refetchOnWindowFocus: false } } }),
  );
  return (
    <QueryClientProvider client={client}>
      <Browser source={source} />
    </QueryClientProvider>
  );
}

function Browser({ source }: { source: SchemaSource }) {
  const { summary } = source;
  const entries = useMemo(() => schemaEntries(summary), [summary]);
  const grouped = summary.groups.length > 0;
  // Search goes through every schema, a group's only once (in its first schema); with more entries
  // than a request carries, through every schema.
  const searchable = useMemo(() => (grouped && entries.length <= SEARCHED_SCHEMAS_MAX ? entries.map((e) => e.schema) : undefined), [grouped, entries]);
  const [selected, setSelected] = useState<string>(() => (entries.find((e) => objectCount(e.counts) > 0) ?? entries[0])?.key ?? '');
  const entry = entries.find((e) => e.key === selected);
  const [search, setSearch] = useState('');
  const term = useDeferredValue(search.trim().toLowerCase());
  const scope: ObjectsScope = term ? { q: term, ...(searchable ? { schemas: searchable } : {}) } : { schema: entry?.schema ?? '' };

  return (
    <div className="schema-browser">
      <div className="toolbar">
        <SearchField label="Search schema" value={search} onChange={setSearch} placeholder="Table, column, view, function…" />
        <p className="muted" aria-live="polite">
          {plural(summary.schemas.length, 'schema', 'schemas')} · {plural(summary.totals.tables, 'table', 'tables')} ·{' '}
          {plural(summary.totals.indexes, 'index', 'indexes')}
          {grouped ? ` · ${plural(summary.groups.length, 'group', 'groups')} of schemas of the same structure` : ''}
        </p>
      </div>
      {summary.warnings.length > 0 ? (
        <div className="callout callout-warning">
          <p className="callout-title">Partly read</p>
          <ul>
            {summary.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}
      <div className="schema-layout">
        <SchemaList
          entries={entries}
          selected={term ? '' : selected}
          onSelect={(key) => {
            setSelected(key);
            setSearch('');
          }}
        />
        <div className="schema-objects">
          <ObjectsHeading term={term} search={search} entry={entry} />
          {term || entry ? (
            <ObjectList key={scopeKey(source, scope)} source={source} scope={scope} term={term} search={search.trim()} />
          ) : (
            <p className="muted">The database has no schema of its own.</p>
          )}
        </div>
      </div>
      <section className="schema-kind" aria-labelledby="schema-extensions">
        <h3 id="schema-extensions">
          Extensions <span className="count">{formatNumber(summary.extensions.length)}</span>
        </h3>
        {summary.extensions.length ? (
          <ul className="extension-list">
            {summary.extensions.map((extension) => (
              <ExtensionItem key={extension.name} extension={extension} />
            ))}
          </ul>
        ) : (
          <p className="muted">No extensions.</p>
        )}
      </section>
    </div>
  );
}

function ObjectsHeading({ term, search, entry }: { term: string; search: string; entry: SchemaEntry | undefined }) {
  if (term) return <h3 className="objects-title">Search: “{search.trim()}”</h3>;
  if (!entry) return null;
  return (
    <>
      <h3 className="objects-title">
        {entry.schemas.length > 1 ? `${entry.schema} (and ${plural(entry.schemas.length - 1, 'other', 'others')} alike)` : entry.schema}
      </h3>
      {entry.schemas.length > 1 ? (
        <p className="muted small">
          {range(entry.schemas.slice(1))} have the same structure as {entry.schema}: its objects stand for all {formatNumber(entry.schemas.length)}.
        </p>
      ) : null}
    </>
  );
}

/** The schemas, a group of the same structure as one entry. */
function SchemaList({ entries, selected, onSelect }: { entries: SchemaEntry[]; selected: string; onSelect: (key: string) => void }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: entries.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 58,
    overscan: 8,
    observeElementRect: observeRect,
    getItemKey: (index) => entries[index]?.key ?? index,
  });
  return (
    <div ref={scrollRef} className="schema-list" role="list" aria-label="Schemas">
      <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
        {virtualizer.getVirtualItems().map((item) => {
          const entry = entries[item.index]!;
          const group = entry.schemas.length > 1;
          return (
            <VirtualRow key={item.key} item={item} measure={virtualizer.measureElement}>
              <button type="button" className="schema-entry" aria-pressed={entry.key === selected} onClick={() => onSelect(entry.key)}>
                <span className="object-name">{group ? range(entry.schemas) : entry.schema}</span>
                <span className="muted small">
                  {group
                    ? `${formatNumber(entry.schemas.length)} schemas of the same ${plural(entry.counts.tables, 'table', 'tables')}`
                    : plural(entry.counts.tables, 'table', 'tables')}
                  {` · ${plural(entry.counts.indexes, 'index', 'indexes')}`}
                </span>
              </button>
            </VirtualRow>
          );
        })}
      </div>
    </div>
  );
}

/** A row of the object list: a kind's heading, or the object at `offset` of the scope's list. */
type Row = { type: 'heading'; kind: keyof ObjectCounts; title: string; count: number } | { type: 'object'; offset: number };

function rowsOf(counts: ObjectCounts): { count: number; at: (index: number) => Row } {
  const segments: { start: number; kind: keyof ObjectCounts; title: string; count: number; offset: number }[] = [];
  let rows = 0;
  let offset = 0;
  for (const { kind, title } of KINDS) {
    if (!counts[kind]) continue;
    segments.push({ start: rows, kind, title, count: counts[kind], offset });
    rows += counts[kind] + 1;
    offset += counts[kind];
  }
  return {
    count: rows,
    at: (index) => {
      let segment = segments[0]!;
      for (const s of segments) if (s.start <= index) segment = s;
      return index === segment.start
        ? { type: 'heading', kind: segment.kind, title: segment.title, count: segment.count }
        : { type: 'object', offset: segment.offset + index - segment.start - 1 };
    },
  };
}

/** The key an object keeps while opened (kind and name, arguments for functions). */
function keyOf(item: SchemaObject): string {
  switch (item.kind) {
    case 'table':
      return `table:${objectKey(item.table.schema, item.table.name)}`;
    case 'view':
      return `view:${objectKey(item.view.schema, item.view.name)}`;
    case 'function':
      return `function:${objectKey(item.function.schema, item.function.name)}(${item.function.arguments})`;
    case 'trigger':
      return `trigger:${objectKey(item.trigger.schema, item.trigger.table)}:${item.trigger.name}`;
    case 'sequence':
      return `sequence:${objectKey(item.sequence.schema, item.sequence.name)}`;
    default:
      return `${item.kind}:${objectKey(item.type.schema, item.type.name)}`;
  }
}

type PageState = { status: 'pending' } | { status: 'error'; error: Error } | { status: 'success'; data: ObjectsResponse };

const scopeKey = (source: SchemaSource, scope: ObjectsScope) => JSON.stringify([source.id, scope.schema ?? null, scope.schemas ?? null, scope.q ?? '']);

/** How one page of the scope's objects is fetched (and, from a source at hand, shown at once). */
function pageQuery(source: SchemaSource, scope: ObjectsScope, page: number) {
  return {
    queryKey: ['schema-objects', scopeKey(source, scope), page],
    queryFn: ({ signal }: { signal: AbortSignal }) => source.objects(scope, page * PAGE_SIZE, PAGE_SIZE, signal),
    initialData: source.objectsNow ? () => source.objectsNow!(scope, page * PAGE_SIZE, PAGE_SIZE) : undefined,
  };
}

function ObjectList({ source, scope, term, search }: { source: SchemaSource; scope: ObjectsScope; term: string; search: string }) {
  const first = useQuery(pageQuery(source, scope, 0));
  const counts = first.data?.counts;
  const rows = useMemo(() => (counts ? rowsOf(counts) : { count: 0, at: () => ({ type: 'object', offset: 0 }) as Row }), [counts]);
  const [opened, setOpened] = useState<ReadonlySet<string>>(new Set());
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.count,
    getScrollElement: () => scrollRef.current,
    estimateSize: (index) => (rows.at(index).type === 'heading' ? 44 : 40),
    overscan: 10,
    observeElementRect: observeRect,
  });
  const visible = virtualizer.getVirtualItems();
  // The pages the rows in view are on (the first is asked for above).
  const pages = [
    ...new Set(visible.map((item) => rows.at(item.index)).flatMap((row) => (row.type === 'object' ? [Math.floor(row.offset / PAGE_SIZE)] : []))),
  ].filter((p) => p > 0);
  const rest = useQueries({ queries: pages.map((p) => pageQuery(source, scope, p)) });
  const pageState = (page: number): PageState => {
    const query = page === 0 ? first : rest[pages.indexOf(page)];
    if (!query) return { status: 'pending' };
    if (query.data) return { status: 'success', data: query.data };
    return query.error ? { status: 'error', error: query.error } : { status: 'pending' };
  };

  if (!first.data) {
    if (first.error) {
      return (
        <div className="callout callout-danger" role="alert">
          <p className="callout-title">The objects could not be read</p>
          <p className="callout-message">{first.error.message}</p>
        </div>
      );
    }
    return (
      <p className="muted" role="status">
        {term ? 'Searching…' : 'Loading objects…'}
      </p>
    );
  }
  const { total, warnings } = first.data;
  const toggle = (key: string, open: boolean) =>
    setOpened((current) => {
      const next = new Set(current);
      if (open) next.add(key);
      else next.delete(key);
      return next;
    });
  return (
    <>
      {term ? (
        <p className="muted" aria-live="polite">
          {formatNumber(total)} matching objects
        </p>
      ) : null}
      {warnings.length ? <p className="muted small">{warnings.join(' ')}</p> : null}
      {total === 0 ? (
        term ? (
          <EmptyState title={`Nothing in the schema matches “${search}”.`} />
        ) : (
          <p className="muted">No objects in this schema.</p>
        )
      ) : (
        <div ref={scrollRef} className="object-scroll" role="list" aria-label={term ? 'Matching objects' : 'Objects'}>
          <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
            {visible.map((item) => (
              <VirtualRow key={item.key} item={item} measure={virtualizer.measureElement}>
                <ObjectRow row={rows.at(item.index)} page={pageState} opened={opened} toggle={toggle} />
              </VirtualRow>
            ))}
          </div>
        </div>
      )}
    </>
  );
}

function ObjectRow({
  row,
  page,
  opened,
  toggle,
}: {
  row: Row;
  page: (page: number) => PageState;
  opened: ReadonlySet<string>;
  toggle: (key: string, open: boolean) => void;
}) {
  if (row.type === 'heading') {
    return (
      <h3 className="kind-heading">
        {row.title} <span className="count">{formatNumber(row.count)}</span>
      </h3>
    );
  }
  const state = page(Math.floor(row.offset / PAGE_SIZE));
  const item = state.status === 'success' ? state.data.items[row.offset % PAGE_SIZE] : undefined;
  if (!item) {
    return <div className="object-placeholder muted small">{state.status === 'error' ? `Could not be read: ${state.error.message}` : 'Loading…'}</div>;
  }
  const key = keyOf(item);
  const openable = { open: opened.has(key), onToggle: (open: boolean) => toggle(key, open) };
  switch (item.kind) {
    case 'table':
      return <TableItem table={item.table} indexes={item.indexes} constraints={item.constraints} triggers={item.triggers} {...openable} />;
    case 'view':
      return <ViewItem view={item.view} {...openable} />;
    case 'function':
      return <FunctionItem fn={item.function} {...openable} />;
    case 'trigger':
      return <TriggerItem trigger={item.trigger} />;
    case 'sequence':
      return <SequenceItem sequence={item.sequence} />;
    default:
      return <TypeItem type={{ ...item.type, kind: item.kind } as Parameters<typeof TypeItem>[0]['type']} />;
  }
}
