// The four parts of a sync, each in its own section; a part that failed says why and the others
// still render.
import type { ReactNode } from 'react';
import type { RemoteSyncResponse } from '../../../shared/analyzer-schema';
import { formatNumber } from '../../lib/time';
import { Card } from '../Card';
import { DisabledIndexes } from './DisabledIndexes';
import { PartError } from './PartError';
import { QueriesTable } from './QueriesTable';
import { SchemaBrowser } from './SchemaBrowser';
import { SyncMeta } from './SyncMeta';

function Section({ id, title, count, children }: { id: string; title: string; count?: number; children: ReactNode }) {
  return (
    <Card id={id} sectionId={`${id}-section`} title={title} count={count === undefined ? undefined : formatNumber(count)}>
      {children}
    </Card>
  );
}

export function SyncResult({ result }: { result: RemoteSyncResponse }) {
  const { meta, schema, queries, disabledIndexes } = result;
  return (
    <div className="stack">
      <nav className="section-nav" aria-label="Sync sections">
        <a href="#schema-section">Schema</a>
        <a href="#queries-section">Queries</a>
        <a href="#disabled-indexes-section">Disabled indexes</a>
      </nav>
      <Section id="overview" title="Overview">
        {meta.type === 'ok' ? <SyncMeta meta={meta.value} /> : <PartError part="Database details" error={meta.error} />}
      </Section>
      <Section id="schema" title="Schema" count={schema.type === 'ok' ? schema.value.tables.length : undefined}>
        {schema.type === 'ok' ? <SchemaBrowser schema={schema.value} /> : <PartError part="The schema" error={schema.error} />}
      </Section>
      <Section id="queries" title="Queries" count={queries.type === 'ok' ? queries.value.length : undefined}>
        {queries.type === 'ok' ? <QueriesTable queries={queries.value} /> : <PartError part="Query statistics" error={queries.error} />}
      </Section>
      <Section id="disabled-indexes" title="Disabled indexes" count={disabledIndexes.type === 'ok' ? disabledIndexes.value.length : undefined}>
        {disabledIndexes.type === 'ok' ? (
          <DisabledIndexes indexes={disabledIndexes.value} />
        ) : (
          <PartError part="Disabled indexes" error={disabledIndexes.error} />
        )}
      </Section>
    </div>
  );
}
