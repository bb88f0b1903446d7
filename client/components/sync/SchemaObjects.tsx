// One kind of object of the synced schema per section, each object one line; tables, views and
// functions open into their details, rendered only once opened so a schema of thousands of objects
// stays quick.
import { useState, type ReactNode } from 'react';
import type { DbFunction, Extension, Sequence, Table, Trigger, Types, View } from '../../../shared/analyzer-schema';
import { formatBytes, formatNumber } from '../../lib/time';
import { Badge } from '../Badge';
import { SqlBlock } from '../SqlBlock';
import { objectKey, qualified, type TableObjects } from './schema-search';
import { TableDetails } from './TableDetails';

/** Objects shown before "Show all": enough to scan, few enough to render at once. */
const PAGE = 100;

/** The objects of one kind under their title ("Tables"), the first PAGE of them until "Show all". */
export function KindSection<T>({ title, items, render, empty = `No ${title.toLowerCase()}.` }: { title: string; items: T[]; render: (item: T) => ReactNode; empty?: string }) {
  const [limit, setLimit] = useState(PAGE);
  const id = `schema-${title.toLowerCase()}`;
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

/**
 * An object that opens into its details: its name, badges and muted facts on one line, in a
 * <details> whose body renders only after it was first opened.
 */
function ExpandableObject({ name, badges, facts, children }: { name: ReactNode; badges?: ReactNode; facts: ReactNode; children: () => ReactNode }) {
  const [opened, setOpened] = useState(false);
  return (
    <li>
      <details className="object" onToggle={(event) => event.currentTarget.open && setOpened(true)}>
        <summary>
          <span className="object-summary">
            <span className="object-name">{name}</span>
            {badges}
            <span className="muted small">{facts}</span>
          </span>
        </summary>
        {opened ? <div className="object-body">{children()}</div> : null}
      </details>
    </li>
  );
}

/** "12 columns · ~1,200 rows · 96 kB": rows and size once the table has statistics. */
function tableFacts(table: Table): string {
  const facts = [`${table.columns.length} columns`];
  if (table.stats?.rowEstimate != null) facts.push(`~${formatNumber(Math.max(0, table.stats.rowEstimate))} rows`);
  if (table.stats) facts.push(formatBytes(table.stats.totalBytes));
  return facts.join(' · ');
}

export function TableItem({ table, related }: { table: Table; related: TableObjects }) {
  const key = objectKey(table.schema, table.name);
  return (
    <ExpandableObject
      name={qualified(table.schema, table.name)}
      badges={table.kind !== 'table' ? <Badge>{table.kind}</Badge> : null}
      facts={tableFacts(table)}
    >
      {() => (
        <TableDetails
          table={table}
          indexes={related.indexes.get(key) ?? []}
          constraints={related.constraints.get(key) ?? []}
          triggers={related.triggers.get(key) ?? []}
        />
      )}
    </ExpandableObject>
  );
}

export function ViewItem({ view }: { view: View }) {
  const badges = (
    <>
      {view.materialized ? <Badge>materialized</Badge> : null}
      {!view.populated ? <Badge tone="warning">not populated</Badge> : null}
    </>
  );
  return (
    <ExpandableObject name={qualified(view.schema, view.name)} badges={badges} facts={`${view.columns.length} columns`}>
      {() => <SqlBlock sql={view.definition} compact />}
    </ExpandableObject>
  );
}

export function FunctionItem({ fn }: { fn: DbFunction }) {
  return (
    <ExpandableObject
      name={`${qualified(fn.schema, fn.name)}(${fn.arguments})`}
      badges={fn.kind !== 'function' ? <Badge>{fn.kind}</Badge> : null}
      facts={`${fn.result ? `returns ${fn.result} · ` : ''}${fn.language} · ${fn.volatility}`}
    >
      {() => (fn.definition ? <SqlBlock sql={fn.definition} compact /> : <p className="muted">Aggregates have no CREATE statement to show.</p>)}
    </ExpandableObject>
  );
}

/** A line for an object with nothing more to open: its name, then `children` (badges and facts). */
function ObjectLine({ name, children }: { name: string; children: ReactNode }) {
  return (
    <li className="object-line">
      <span className="object-name">{name}</span> {children}
    </li>
  );
}

export type UserType =
  | (Types['enums'][number] & { kind: 'enum' })
  | (Types['domains'][number] & { kind: 'domain' })
  | (Types['composites'][number] & { kind: 'composite' });

/** An enum by its labels, a domain by its base type and constraints, a composite by its attributes. */
function typeFacts(type: UserType): string {
  if (type.kind === 'enum') return type.labels.join(', ');
  if (type.kind === 'domain') return `${type.baseType}${type.notNull ? ' not null' : ''}${type.constraints.map((c) => ` ${c.definition}`).join('')}`;
  return type.attributes.map((a) => `${a.name} ${a.type}`).join(', ');
}

export function TypeItem({ type }: { type: UserType }) {
  return (
    <ObjectLine name={qualified(type.schema, type.name)}>
      <Badge>{type.kind}</Badge> <span className="muted small">{typeFacts(type)}</span>
    </ObjectLine>
  );
}

export function TriggerItem({ trigger }: { trigger: Trigger }) {
  return (
    <ObjectLine name={trigger.name}>
      <span className="muted small">on {qualified(trigger.schema, trigger.table)}</span>
      {trigger.enabled === 'disabled' ? <Badge tone="warning">disabled</Badge> : null}
    </ObjectLine>
  );
}

export function ExtensionItem({ extension }: { extension: Extension }) {
  return (
    <ObjectLine name={extension.name}>
      <span className="muted small">
        {extension.version} in {extension.schema}
      </span>
    </ObjectLine>
  );
}

export function SequenceItem({ sequence }: { sequence: Sequence }) {
  return (
    <ObjectLine name={qualified(sequence.schema, sequence.name)}>
      <span className="muted small">
        {sequence.dataType}
        {sequence.ownedBy ? ` · owned by ${sequence.ownedBy.table}.${sequence.ownedBy.column}` : ''}
        {sequence.lastValue ? ` · last value ${sequence.lastValue}` : ''}
      </span>
    </ObjectLine>
  );
}
