// Statements from pg_stat_statements, one per fingerprint, sortable by their figures.
import { useDeferredValue, useMemo, useState } from 'react';
import type { QueryStats } from '../../../shared/analyzer-schema';
import { formatDuration, formatNumber } from '../../lib/time';
import { DataTable } from '../DataTable';
import { EmptyState } from '../States';

type SortKey = 'calls' | 'meanTimeMs' | 'totalTimeMs' | 'rows';
const COLUMNS: { key: SortKey; label: string }[] = [
  { key: 'calls', label: 'Calls' },
  { key: 'meanTimeMs', label: 'Mean time' },
  { key: 'totalTimeMs', label: 'Total time' },
  { key: 'rows', label: 'Rows' },
];
const PAGE = 200;

export function QueriesTable({ queries }: { queries: QueryStats[] }) {
  const [sort, setSort] = useState<{ key: SortKey; descending: boolean }>({ key: 'totalTimeMs', descending: true });
  const [filter, setFilter] = useState('');
  const [limit, setLimit] = useState(PAGE);
  const term = useDeferredValue(filter.trim().toLowerCase());

  const rows = useMemo(() => {
    const list = term ? queries.filter((q) => q.formattedQuery.toLowerCase().includes(term) || q.query.toLowerCase().includes(term)) : [...queries];
    const direction = sort.descending ? -1 : 1;
    return list.sort((a, b) => (a[sort.key] - b[sort.key]) * direction || a.hash.localeCompare(b.hash));
  }, [queries, term, sort]);

  if (queries.length === 0) {
    return (
      <EmptyState title="No queries recorded yet.">
        pg_stat_statements is installed but holds no statements of this database. Run your application or tests against it, then sync again.
      </EmptyState>
    );
  }

  const toggle = (key: SortKey) => setSort((current) => ({ key, descending: current.key === key ? !current.descending : true }));

  return (
    <>
      <div className="toolbar">
        <div className="field field-inline">
          <label htmlFor="queries-filter">Filter queries</label>
          <input
            id="queries-filter"
            className="input"
            type="search"
            value={filter}
            onChange={(event) => setFilter(event.target.value)}
            placeholder="Text in the SQL"
          />
        </div>
        <p className="muted" aria-live="polite">
          {formatNumber(rows.length)} of {formatNumber(queries.length)} queries
        </p>
      </div>
      <DataTable
        label="Queries from pg_stat_statements"
        className="queries-table"
        columns={[
          'Query',
          ...COLUMNS.map((column) => {
            const active = sort.key === column.key;
            return {
              className: 'numeric',
              sort: active ? (sort.descending ? 'descending' : 'ascending') : 'none',
              label: (
                <button type="button" className="sort-button" onClick={() => toggle(column.key)}>
                  {column.label}
                  <span aria-hidden="true" className="sort-indicator">
                    {active ? (sort.descending ? '▼' : '▲') : '↕'}
                  </span>
                </button>
              ),
            } as const;
          }),
        ]}
        rows={rows.slice(0, limit)}
        empty={<EmptyState title={`No query matches “${filter.trim()}”.`} />}
        row={(query) => (
          <tr key={query.hash}>
            <td className="query-cell">
              <pre className="sql sql-compact" title={`Fingerprint ${query.hash}`}>
                <code>{query.formattedQuery}</code>
              </pre>
            </td>
            <td className="numeric">{formatNumber(query.calls)}</td>
            <td className="numeric">{formatDuration(query.meanTimeMs)}</td>
            <td className="numeric">{formatDuration(query.totalTimeMs)}</td>
            <td className="numeric">{formatNumber(query.rows)}</td>
          </tr>
        )}
      />
      {rows.length > limit ? (
        <button type="button" className="button button-small" onClick={() => setLimit(rows.length)}>
          Show all {formatNumber(rows.length)} queries
        </button>
      ) : null}
    </>
  );
}
