// The synced schema, browsable per kind of object and searchable by name (tables by their columns
// too). Tables open into their columns, indexes, constraints, triggers, statistics and sample rows.
import { useDeferredValue, useMemo, useState } from 'react';
import type { DatabaseSchema } from '../../../shared/analyzer-schema';
import { formatNumber } from '../../lib/time';
import { SearchField } from '../Field';
import { EmptyState } from '../States';
import { objectKey, objectsByTable, searchSchema } from './schema-search';
import { ExtensionItem, FunctionItem, KindSection, SequenceItem, TableItem, TriggerItem, TypeItem, ViewItem, type UserType } from './SchemaObjects';

export function SchemaBrowser({ schema }: { schema: DatabaseSchema }) {
  const [search, setSearch] = useState('');
  const term = useDeferredValue(search.trim().toLowerCase());
  const related = useMemo(() => objectsByTable(schema), [schema]);
  const found = useMemo(() => searchSchema(schema, term), [schema, term]);
  const total = Object.values(found).reduce((sum, list) => sum + list.length, 0);
  const types: UserType[] = [
    ...found.enums.map((t) => ({ ...t, kind: 'enum' as const })),
    ...found.domains.map((t) => ({ ...t, kind: 'domain' as const })),
    ...found.composites.map((t) => ({ ...t, kind: 'composite' as const })),
  ];

  return (
    <div className="schema-browser">
      <div className="toolbar">
        <SearchField label="Search schema" value={search} onChange={setSearch} placeholder="Table, column, view, function…" />
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

      <KindSection title="Tables" items={found.tables} render={(table) => <TableItem key={objectKey(table.schema, table.name)} table={table} related={related} />} />
      <KindSection title="Views" items={found.views} render={(view) => <ViewItem key={objectKey(view.schema, view.name)} view={view} />} />
      <KindSection title="Functions" items={found.functions} render={(fn) => <FunctionItem key={`${objectKey(fn.schema, fn.name)}(${fn.arguments})`} fn={fn} />} />
      <KindSection
        title="Types"
        empty="No user-defined types."
        items={types}
        render={(type) => <TypeItem key={`${type.kind}:${objectKey(type.schema, type.name)}`} type={type} />}
      />
      <KindSection
        title="Triggers"
        items={found.triggers}
        render={(trigger) => <TriggerItem key={`${objectKey(trigger.schema, trigger.table)}:${trigger.name}`} trigger={trigger} />}
      />
      <KindSection title="Extensions" items={found.extensions} render={(extension) => <ExtensionItem key={extension.name} extension={extension} />} />
      <KindSection title="Sequences" items={found.sequences} render={(sequence) => <SequenceItem key={objectKey(sequence.schema, sequence.name)} sequence={sequence} />} />
    </div>
  );
}
