// The synced schema, browsable per kind of object and searchable by name. Tables open into their
// columns, indexes, constraints, triggers, statistics and sample rows, rendered only once opened so
// a schema of thousands of objects stays quick.
import { useDeferredValue, useMemo, useState, type ReactNode } from 'react';
import type { Constraint, DatabaseSchema, DbFunction, Index, Table, Trigger, View } from '../../../shared/analyzer-schema';
import { formatBytes, formatNumber } from '../../lib/time';
import { Badge } from '../Badge';
import { RelativeTime } from '../RelativeTime';
import { EmptyState } from '../States';

const PAGE = 100;
const qualified = (schema: string, name: string) => (schema === 'public' ? name : `${schema}.${name}`);
const key = (schema: string, name: string) => `${schema}\u0000${name}`;

function groupBy<T>(items: T[], keyOf: (item: T) => string | undefined): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = keyOf(item);
    if (k === undefined) continue;
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

function KindSection<T>({ id, title, items, render, empty }: { id: string; title: string; items: T[]; render: (item: T) => ReactNode; empty: string }) {
  const [limit, setLimit] = useState(PAGE);
  return (
    <section className="schema-kind" aria-labelledby={id}>
      <h3 id={id}>
        {title} <span className="count">{formatNumber(items.length)}</span>
      </h3>
      {items.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <>
          <ul className="object-list">{items.slice(0, limit).map(render)}</ul>
          {items.length > limit ? (
            <button type="button" className="button button-small" onClick={() => setLimit(items.length)}>
              Show all {formatNumber(items.length)} {title.toLowerCase()}
            </button>
          ) : null}
        </>
      )}
    </section>
  );
}

/** A <details> whose body renders only after it was first opened. */
function Expandable({ summary, children }: { summary: ReactNode; children: () => ReactNode }) {
  const [opened, setOpened] = useState(false);
  return (
    <details className="object" onToggle={(event) => event.currentTarget.open && setOpened(true)}>
      <summary>{summary}</summary>
      {opened ? <div className="object-body">{children()}</div> : null}
    </details>
  );
}

function Definition({ sql }: { sql: string }) {
  return (
    <pre className="sql sql-compact">
      <code>{sql}</code>
    </pre>
  );
}

function TableBody({ table, indexes, constraints, triggers }: { table: Table; indexes: Index[]; constraints: Constraint[]; triggers: Trigger[] }) {
  const stats = table.stats;
  return (
    <>
      {table.comment ? <p className="muted">{table.comment}</p> : null}
      {table.partitionOf ? (
        <p className="muted">
          Partition of {qualified(table.partitionOf.schema, table.partitionOf.name)} {table.partitionBound}
        </p>
      ) : null}
      {table.partitionKey ? <p className="muted">Partitioned by {table.partitionKey}</p> : null}
      <h4>Columns</h4>
      <div className="table-scroll">
        <table className="data-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Nullable</th>
              <th scope="col">Default</th>
            </tr>
          </thead>
          <tbody>
            {table.columns.map((column) => (
              <tr key={column.name}>
                <td>
                  <code>{column.name}</code>
                  {column.comment ? <div className="muted small">{column.comment}</div> : null}
                </td>
                <td>
                  <code>{column.type}</code>
                  {column.collation ? <span className="muted small"> collate {column.collation}</span> : null}
                </td>
                <td>{column.nullable ? 'yes' : 'not null'}</td>
                <td>
                  {column.identity ? <Badge>identity {column.identity === 'always' ? 'always' : 'by default'}</Badge> : null}
                  {column.generated ? <code>generated {column.generated}: {column.generationExpression}</code> : null}
                  {column.default ? <code>{column.default}</code> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h4>Indexes</h4>
      {indexes.length === 0 ? (
        <p className="muted">No indexes.</p>
      ) : (
        <ul className="plain-list">
          {indexes.map((index) => (
            <li key={index.name}>
              <strong>{index.name}</strong> {index.primary ? <Badge tone="accent">primary</Badge> : index.unique ? <Badge>unique</Badge> : null}{' '}
              {!index.valid || !index.ready ? <Badge tone="danger">disabled</Badge> : null}
              <Definition sql={index.definition} />
            </li>
          ))}
        </ul>
      )}
      <h4>Constraints</h4>
      {constraints.length === 0 ? (
        <p className="muted">No constraints.</p>
      ) : (
        <ul className="plain-list">
          {constraints.map((constraint) => (
            <li key={constraint.name}>
              <strong>{constraint.name}</strong> <Badge>{constraint.type}</Badge>{' '}
              {constraint.references ? (
                <span className="muted small">→ {qualified(constraint.references.schema, constraint.references.table)}</span>
              ) : null}
              <Definition sql={constraint.definition} />
            </li>
          ))}
        </ul>
      )}
      {triggers.length > 0 ? (
        <>
          <h4>Triggers</h4>
          <ul className="plain-list">
            {triggers.map((trigger) => (
              <li key={trigger.name}>
                <strong>{trigger.name}</strong> {trigger.enabled === 'disabled' ? <Badge tone="warning">disabled</Badge> : null}
                <Definition sql={trigger.definition} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {stats ? (
        <>
          <h4>Statistics</h4>
          <dl className="facts facts-small">
            <div>
              <dt>Rows (estimate)</dt>
              <dd>{stats.rowEstimate === null ? 'never analyzed' : formatNumber(stats.rowEstimate)}</dd>
            </div>
            <div>
              <dt>Live / dead tuples</dt>
              <dd>
                {stats.liveTuples ?? '—'} / {stats.deadTuples ?? '—'}
              </dd>
            </div>
            <div>
              <dt>Seq / index scans</dt>
              <dd>
                {stats.seqScans ?? '—'} / {stats.indexScans ?? '—'}
              </dd>
            </div>
            <div>
              <dt>Table / indexes / total</dt>
              <dd>
                {formatBytes(stats.tableBytes)} / {formatBytes(stats.indexesBytes)} / {formatBytes(stats.totalBytes)}
              </dd>
            </div>
            <div>
              <dt>Last analyze</dt>
              <dd>{lastOf(stats.lastAnalyze, stats.lastAutoanalyze)}</dd>
            </div>
            <div>
              <dt>Last vacuum</dt>
              <dd>{lastOf(stats.lastVacuum, stats.lastAutovacuum)}</dd>
            </div>
          </dl>
        </>
      ) : null}
      <h4>Sample rows</h4>
      <SampleRows table={table} />
    </>
  );
}

function lastOf(manual: string | null, auto: string | null): ReactNode {
  const latest = [manual, auto].filter((v): v is string => Boolean(v)).sort().at(-1);
  return latest ? <RelativeTime value={latest} /> : 'never';
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function SampleRows({ table }: { table: Table }) {
  if (table.sampleRows.type === 'error') return <p className="field-error">Sample rows could not be read: {table.sampleRows.error}</p>;
  const rows = table.sampleRows.value;
  if (rows.length === 0) return <p className="muted">No sample rows (the table is empty or sampling is off).</p>;
  const columns = table.columns.map((c) => c.name).filter((name) => rows.some((row) => name in row));
  return (
    <div className="table-scroll">
      <table className="data-table data-table-compact">
        <thead>
          <tr>
            {columns.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row, i) => (
            <tr key={i}>
              {columns.map((name) => (
                <td key={name} className="truncate">
                  {cell(row[name])}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

const matches = (term: string, ...texts: (string | null | undefined)[]) => !term || texts.some((t) => t?.toLowerCase().includes(term));

export function SchemaBrowser({ schema }: { schema: DatabaseSchema }) {
  const [search, setSearch] = useState('');
  const term = useDeferredValue(search.trim().toLowerCase());

  const related = useMemo(
    () => ({
      indexes: groupBy(schema.indexes, (i) => key(i.schema, i.table)),
      constraints: groupBy(schema.constraints, (c) => (c.table ? key(c.table.schema, c.table.name) : undefined)),
      triggers: groupBy(schema.triggers, (t) => key(t.schema, t.table)),
    }),
    [schema],
  );

  const filtered = useMemo(() => {
    const tables = schema.tables.filter((t) => matches(term, qualified(t.schema, t.name), ...t.columns.map((c) => c.name)));
    const views = schema.views.filter((v) => matches(term, qualified(v.schema, v.name)));
    const functions = schema.functions.filter((f) => matches(term, qualified(f.schema, f.name)));
    const enums = schema.types.enums.filter((t) => matches(term, qualified(t.schema, t.name), ...t.labels));
    const domains = schema.types.domains.filter((t) => matches(term, qualified(t.schema, t.name)));
    const composites = schema.types.composites.filter((t) => matches(term, qualified(t.schema, t.name)));
    const triggers = schema.triggers.filter((t) => matches(term, t.name, qualified(t.schema, t.table)));
    const extensions = schema.extensions.filter((e) => matches(term, e.name));
    const sequences = schema.sequences.filter((s) => matches(term, qualified(s.schema, s.name)));
    return { tables, views, functions, enums, domains, composites, triggers, extensions, sequences };
  }, [schema, term]);

  const total = Object.values(filtered).reduce((sum, list) => sum + list.length, 0);

  return (
    <div className="schema-browser">
      <div className="toolbar">
        <div className="field field-inline">
          <label htmlFor="schema-search">Search schema</label>
          <input
            id="schema-search"
            className="input"
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            placeholder="Table, column, view, function…"
          />
        </div>
        <p className="muted" aria-live="polite">
          {term ? `${formatNumber(total)} matching objects` : `${formatNumber(schema.schemas.length)} schemas`}
        </p>
      </div>
      {schema.warnings.length > 0 ? (
        <div className="callout callout-warning">
          <p className="callout-title">Partly read</p>
          <ul>
            {schema.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        </div>
      ) : null}
      {term && total === 0 ? <EmptyState title={`Nothing in the schema matches “${search.trim()}”.`} /> : null}

      <KindSection
        id="schema-tables"
        title="Tables"
        items={filtered.tables}
        empty="No tables."
        render={(table) => {
          const k = key(table.schema, table.name);
          return (
            <li key={k}>
              <Expandable
                summary={
                  <span className="object-summary">
                    <span className="object-name">{qualified(table.schema, table.name)}</span>
                    {table.kind !== 'table' ? <Badge>{table.kind}</Badge> : null}
                    <span className="muted small">
                      {table.columns.length} columns
                      {table.stats?.rowEstimate != null ? ` · ~${formatNumber(Math.max(0, table.stats.rowEstimate))} rows` : ''}
                      {table.stats ? ` · ${formatBytes(table.stats.totalBytes)}` : ''}
                    </span>
                  </span>
                }
              >
                {() => (
                  <TableBody
                    table={table}
                    indexes={related.indexes.get(k) ?? []}
                    constraints={related.constraints.get(k) ?? []}
                    triggers={related.triggers.get(k) ?? []}
                  />
                )}
              </Expandable>
            </li>
          );
        }}
      />
      <KindSection id="schema-views" title="Views" items={filtered.views} empty="No views." render={(view: View) => <ViewItem key={key(view.schema, view.name)} view={view} />} />
      <KindSection
        id="schema-functions"
        title="Functions"
        items={filtered.functions}
        empty="No functions."
        render={(fn: DbFunction) => (
          <li key={`${key(fn.schema, fn.name)}(${fn.arguments})`}>
            <Expandable
              summary={
                <span className="object-summary">
                  <span className="object-name">
                    {qualified(fn.schema, fn.name)}({fn.arguments})
                  </span>
                  {fn.kind !== 'function' ? <Badge>{fn.kind}</Badge> : null}
                  <span className="muted small">
                    {fn.result ? `returns ${fn.result} · ` : ''}
                    {fn.language} · {fn.volatility}
                  </span>
                </span>
              }
            >
              {() => (fn.definition ? <Definition sql={fn.definition} /> : <p className="muted">Aggregates have no CREATE statement to show.</p>)}
            </Expandable>
          </li>
        )}
      />
      <KindSection
        id="schema-types"
        title="Types"
        items={[...filtered.enums.map((t) => ({ ...t, kind: 'enum' as const })), ...filtered.domains.map((t) => ({ ...t, kind: 'domain' as const })), ...filtered.composites.map((t) => ({ ...t, kind: 'composite' as const }))]}
        empty="No user-defined types."
        render={(type) => (
          <li key={`${type.kind}:${key(type.schema, type.name)}`} className="object-line">
            <span className="object-name">{qualified(type.schema, type.name)}</span> <Badge>{type.kind}</Badge>{' '}
            <span className="muted small">
              {type.kind === 'enum'
                ? type.labels.join(', ')
                : type.kind === 'domain'
                  ? `${type.baseType}${type.notNull ? ' not null' : ''}${type.constraints.map((c) => ` ${c.definition}`).join('')}`
                  : type.attributes.map((a) => `${a.name} ${a.type}`).join(', ')}
            </span>
          </li>
        )}
      />
      <KindSection
        id="schema-triggers"
        title="Triggers"
        items={filtered.triggers}
        empty="No triggers."
        render={(trigger: Trigger) => (
          <li key={`${key(trigger.schema, trigger.table)}:${trigger.name}`} className="object-line">
            <span className="object-name">{trigger.name}</span> <span className="muted small">on {qualified(trigger.schema, trigger.table)}</span>
            {trigger.enabled === 'disabled' ? <Badge tone="warning">disabled</Badge> : null}
          </li>
        )}
      />
      <KindSection
        id="schema-extensions"
        title="Extensions"
        items={filtered.extensions}
        empty="No extensions."
        render={(extension) => (
          <li key={extension.name} className="object-line">
            <span className="object-name">{extension.name}</span> <span className="muted small">{extension.version} in {extension.schema}</span>
          </li>
        )}
      />
      <KindSection
        id="schema-sequences"
        title="Sequences"
        items={filtered.sequences}
        empty="No sequences."
        render={(sequence) => (
          <li key={key(sequence.schema, sequence.name)} className="object-line">
            <span className="object-name">{qualified(sequence.schema, sequence.name)}</span>{' '}
            <span className="muted small">
              {sequence.dataType}
              {sequence.ownedBy ? ` · owned by ${sequence.ownedBy.table}.${sequence.ownedBy.column}` : ''}
              {sequence.lastValue ? ` · last value ${sequence.lastValue}` : ''}
            </span>
          </li>
        )}
      />
    </div>
  );
}

function ViewItem({ view }: { view: View }) {
  return (
    <li>
      <Expandable
        summary={
          <span className="object-summary">
            <span className="object-name">{qualified(view.schema, view.name)}</span>
            {view.materialized ? <Badge>materialized</Badge> : null}
            {!view.populated ? <Badge tone="warning">not populated</Badge> : null}
            <span className="muted small">{view.columns.length} columns</span>
          </span>
        }
      >
        {() => <Definition sql={view.definition} />}
      </Expandable>
    </li>
  );
}
