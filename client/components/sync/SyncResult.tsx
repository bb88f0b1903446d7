// The four parts of a sync, each in its own section; a part that failed says why and the others
// still render. A sync from the analyzer comes summarized (its objects are fetched as the schema
// browser shows them); a whole RemoteSyncResponse (the demo's) is browsed from memory.
import { useMemo, type ReactNode } from 'react';
import type { DatabaseSchema } from '../../../shared/analyzer-schema';
import type { AnalyzerBrowse, SyncView } from '../../lib/analyzer';
import { formatNumber } from '../../lib/time';
import { Card } from '../Card';
import { DisabledIndexes } from './DisabledIndexes';
import { PartError } from './PartError';
import { QueriesTable } from './QueriesTable';
import { SchemaBrowser } from './SchemaBrowser';
import { SyncMeta } from './SyncMeta';
import { analyzerSource, memorySource } from './schema-source';

function Section({ id, title, count, children }: { id: string; title: string; count?: number; children: ReactNode }) {
  return (
    <Card id={id} sectionId={`${id}-section`} title={title} count={count === undefined ? undefined : formatNumber(count)}>
      {children}
    </Card>
  );
}

function AnalyzerSchema({ browse }: { browse: AnalyzerBrowse }) {
  const { summary } = browse;
  const source = useMemo(() => (summary.type === 'ok' ? analyzerSource(browse, summary.value) : undefined), [browse, summary]);
  return source ? <SchemaBrowser source={source} /> : <PartError part="The schema" error={summary.type === 'error' ? summary.error : ''} />;
}

function MemorySchema({ schema }: { schema: DatabaseSchema }) {
  const source = useMemo(() => memorySource(schema), [schema]);
  return <SchemaBrowser source={source} />;
}

export function SyncResult({ result }: { result: SyncView }) {
  const { meta, schema, queries, disabledIndexes, browse } = result;
  const tableCount = browse
    ? browse.summary.type === 'ok'
      ? browse.summary.value.totals.tables
      : undefined
    : schema.type === 'ok'
      ? schema.value.tables.length
      : undefined;
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
      <Section id="schema" title="Schema" count={tableCount}>
        {browse ? (
          <AnalyzerSchema browse={browse} />
        ) : schema.type === 'ok' ? (
          <MemorySchema schema={schema.value} />
        ) : (
          <PartError part="The schema" error={schema.error} />
        )}
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
