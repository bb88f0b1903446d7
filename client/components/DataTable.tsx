// The app's tables: a labelled, horizontally scrollable table with one header row, or what to show
// when there are no rows.
import type { ReactNode } from 'react';
import { Loaded, type QueryLike } from './States';
import { TableHead, type MaybeColumn } from './TableHead';

interface DataTableProps<T> {
  /** The table's accessible name; without it, the heading before the table names it. */
  label?: string;
  columns: readonly MaybeColumn[];
  rows: readonly T[];
  /** One row's `<tr>`, keyed. */
  row: (item: T, index: number) => ReactNode;
  /** Shown instead of the table when `rows` is empty; without it, an empty table. */
  empty?: ReactNode;
  /** Classes beside `data-table`. */
  className?: string;
  /** Set while newer rows are loading. */
  busy?: boolean;
}

export function DataTable<T>({ label, columns, rows, row, empty, className, busy }: DataTableProps<T>) {
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>;
  return (
    <div className="table-scroll" aria-busy={busy}>
      <table className={className ? `data-table ${className}` : 'data-table'} aria-label={label}>
        <TableHead columns={columns} />
        <tbody>{rows.map(row)}</tbody>
      </table>
    </div>
  );
}

type QueryTableProps<T> = Omit<DataTableProps<T>, 'rows'> & {
  query: QueryLike<readonly T[]>;
  /** What the spinner says while the rows load. */
  loading: string;
  /** The heading of the error shown when they cannot. */
  failed: string;
};

/** A DataTable of a query's rows, with its loading and failed states. */
export function QueryTable<T>({ query, loading, failed, ...table }: QueryTableProps<T>) {
  return (
    <Loaded query={query} loading={loading} failed={failed}>
      {(rows) => <DataTable {...table} rows={rows} />}
    </Loaded>
  );
}
