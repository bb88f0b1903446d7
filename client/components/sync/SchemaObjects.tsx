// One object of the synced schema per line; tables, views and functions open into their details,
// rendered only while opened so that the browser's list stays light. Whether an object is open is
// its list's to keep (a virtualized row is unmounted when scrolled away and mounted again).
import type { ReactNode } from 'react';
import type { Constraint, DbFunction, Extension, Index, Sequence, Table, Trigger, Types, View } from '../../../shared/analyzer-schema';
import { formatBytes, formatNumber } from '../../lib/time';
import { Badge } from '../Badge';
import { SqlBlock } from '../SqlBlock';
import { qualified } from './schema-search';
import { TableDetails } from './TableDetails';

/** Opened or not, and how to change it: kept by the list. */
export interface Openable {
  open: boolean;
  onToggle: (open: boolean) => void;
}

/**
 * An object that opens into its details: its name, badges and muted facts on one line, in a
 * <details> whose body renders only while it is open.
 */
function ExpandableObject({
  name,
  badges,
  facts,
  open,
  onToggle,
  children,
}: { name: ReactNode; badges?: ReactNode; facts: ReactNode; children: () => ReactNode } & Openable) {
  return (
    <details
      className="object"
      open={open}
      onToggle={(event) => {
        if (event.currentTarget.open !== open) onToggle(event.currentTarget.open);
      }}
    >
      <summary>
        <span className="object-summary">
          <span className="object-name">{name}</span>
          {badges}
          <span className="muted small">{facts}</span>
        </span>
      </summary>
      {open ? <div className="object-body">{children()}</div> : null}
    </details>
  );
}

/** "12 columns · ~1,200 rows · 96 kB": rows and size once the table has statistics. */
function tableFacts(table: Table): string {
  const facts = [`${table.columns.length} columns`];
  if (table.stats?.rowEstimate != null) facts.push(`~${formatNumber(Math.max(0, table.stats.rowEstimate))} rows`);
  if (table.stats) facts.push(formatBytes(table.stats.totalBytes));
  return facts.join(' · ');
}

export function TableItem({
  table,
  indexes,
  constraints,
  triggers,
  ...openable
}: { table: Table; indexes: Index[]; constraints: Constraint[]; triggers: Trigger[] } & Openable) {
  return (
    <ExpandableObject
      name={qualified(table.schema, table.name)}
      badges={table.kind !== 'table' ? <Badge>{table.kind}</Badge> : null}
      facts={tableFacts(table)}
      {...openable}
    >
      {() => <TableDetails table={table} indexes={indexes} constraints={constraints} triggers={triggers} />}
    </ExpandableObject>
  );
}

export function ViewItem({ view, ...openable }: { view: View } & Openable) {
  const badges = (
    <>
      {view.materialized ? <Badge>materialized</Badge> : null}
      {!view.populated ? <Badge tone="warning">not populated</Badge> : null}
    </>
  );
  return (
    <ExpandableObject name={qualified(view.schema, view.name)} badges={badges} facts={`${view.columns.length} columns`} {...openable}>
      {() => <SqlBlock sql={view.definition} compact />}
    </ExpandableObject>
  );
}

export function FunctionItem({ fn, ...openable }: { fn: DbFunction } & Openable) {
  return (
    <ExpandableObject
      name={`${qualified(fn.schema, fn.name)}(${fn.arguments})`}
      badges={fn.kind !== 'function' ? <Badge>{fn.kind}</Badge> : null}
      facts={`${fn.result ? `returns ${fn.result} · ` : ''}${fn.language} · ${fn.volatility}`}
      {...openable}
    >
      {() => (fn.definition ? <SqlBlock sql={fn.definition} compact /> : <p className="muted">Aggregates have no CREATE statement to show.</p>)}
    </ExpandableObject>
  );
}

/** A line for an object with nothing more to open: its name, then `children` (badges and facts). */
function ObjectLine({ name, children }: { name: string; children: ReactNode }) {
  return (
    <div className="object-line">
      <span className="object-name">{name}</span> {children}
    </div>
  );
}

export type UserType =
  (Types['enums'][number] & { kind: 'enum' }) | (Types['domains'][number] & { kind: 'domain' }) | (Types['composites'][number] & { kind: 'composite' });

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
    <li className="extension">
      <span className="object-name">{extension.name}</span>{' '}
      <span className="muted small">
        {extension.version} in {extension.schema}
      </span>
    </li>
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
