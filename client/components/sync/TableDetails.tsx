// What an opened table of the synced schema shows: its columns, indexes, constraints, triggers,
// statistics and sample rows.
import type { ReactNode } from 'react';
import type { Column, Constraint, Index, Table, TableStats, Trigger } from '../../../shared/analyzer-schema';
import { formatBytes, formatNumber } from '../../lib/time';
import { Badge } from '../Badge';
import { Fact, Facts } from '../Facts';
import { RelativeTime } from '../RelativeTime';
import { SqlBlock } from '../SqlBlock';
import { DataTable } from '../DataTable';
import { qualified } from './schema-search';

export function TableDetails({ table, indexes, constraints, triggers }: { table: Table; indexes: Index[]; constraints: Constraint[]; triggers: Trigger[] }) {
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
      <Columns columns={table.columns} />
      <DefinitionList title="Indexes" items={indexes} empty="No indexes.">
        {(index) => (
          <>
            <strong>{index.name}</strong> {index.primary ? <Badge tone="accent">primary</Badge> : index.unique ? <Badge>unique</Badge> : null}{' '}
            {!index.valid || !index.ready ? <Badge tone="danger">disabled</Badge> : null}
          </>
        )}
      </DefinitionList>
      <DefinitionList title="Constraints" items={constraints} empty="No constraints.">
        {(constraint) => (
          <>
            <strong>{constraint.name}</strong> <Badge>{constraint.type}</Badge>{' '}
            {constraint.references ? <span className="muted small">→ {qualified(constraint.references.schema, constraint.references.table)}</span> : null}
          </>
        )}
      </DefinitionList>
      {/* most tables have none: the heading appears only when there are some */}
      <DefinitionList title="Triggers" items={triggers}>
        {(trigger) => (
          <>
            <strong>{trigger.name}</strong> {trigger.enabled === 'disabled' ? <Badge tone="warning">disabled</Badge> : null}
          </>
        )}
      </DefinitionList>
      {table.stats ? <Statistics stats={table.stats} /> : null}
      <h4>Sample rows</h4>
      <SampleRows table={table} />
    </>
  );
}

function Columns({ columns }: { columns: Column[] }) {
  return (
    <DataTable
      columns={['Name', 'Type', 'Nullable', 'Default']}
      rows={columns}
      row={(column) => (
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
            {column.generated ? (
              <code>
                generated {column.generated}: {column.generationExpression}
              </code>
            ) : null}
            {column.default ? <code>{column.default}</code> : null}
          </td>
        </tr>
      )}
    />
  );
}

/**
 * Named objects with their SQL definition under a heading: `children` renders an item's line. With
 * no items it says `empty`, or shows nothing at all when there is no `empty` text.
 */
function DefinitionList<T extends { name: string; definition: string }>({
  title,
  items,
  empty,
  children,
}: {
  title: string;
  items: T[];
  empty?: string;
  children: (item: T) => ReactNode;
}) {
  if (items.length === 0 && !empty) return null;
  return (
    <>
      <h4>{title}</h4>
      {items.length === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <ul className="plain-list">
          {items.map((item) => (
            <li key={item.name}>
              {children(item)}
              <SqlBlock sql={item.definition} compact />
            </li>
          ))}
        </ul>
      )}
    </>
  );
}

/** The latest of a manual and an automatic run (ANALYZE or VACUUM), or "never". */
function lastOf(manual: string | null, auto: string | null): ReactNode {
  const latest = [manual, auto]
    .filter((v): v is string => Boolean(v))
    .sort()
    .at(-1);
  return latest ? <RelativeTime value={latest} /> : 'never';
}

function Statistics({ stats }: { stats: TableStats }) {
  return (
    <>
      <h4>Statistics</h4>
      <Facts small>
        <Fact term="Rows (estimate)">{stats.rowEstimate === null ? 'never analyzed' : formatNumber(stats.rowEstimate)}</Fact>
        <Fact term="Live / dead tuples">
          {stats.liveTuples ?? '—'} / {stats.deadTuples ?? '—'}
        </Fact>
        <Fact term="Seq / index scans">
          {stats.seqScans ?? '—'} / {stats.indexScans ?? '—'}
        </Fact>
        <Fact term="Table / indexes / total">
          {formatBytes(stats.tableBytes)} / {formatBytes(stats.indexesBytes)} / {formatBytes(stats.totalBytes)}
        </Fact>
        <Fact term="Last analyze">{lastOf(stats.lastAnalyze, stats.lastAutoanalyze)}</Fact>
        <Fact term="Last vacuum">{lastOf(stats.lastVacuum, stats.lastAutovacuum)}</Fact>
      </Facts>
    </>
  );
}

/** A sample value as text: NULL spelled out, json and arrays as JSON. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

function SampleRows({ table }: { table: Table }) {
  if (table.sampleRows.type === 'error') return <p className="field-error">Sample rows could not be read: {table.sampleRows.error}</p>;
  const rows = table.sampleRows.value;
  if (rows.length === 0) return <p className="muted">No sample rows (the table is empty or sampling is off).</p>;
  // only the columns the sample holds (a column may be left out of sampling)
  const columns = table.columns.map((c) => c.name).filter((name) => rows.some((row) => name in row));
  return (
    <DataTable
      className="data-table-compact"
      columns={columns}
      rows={rows}
      row={(row, i) => (
        <tr key={i}>
          {columns.map((name) => (
            <td key={name} className="truncate">
              {cell(row[name])}
            </td>
          ))}
        </tr>
      )}
    />
  );
}
