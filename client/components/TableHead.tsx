import type { ReactNode } from 'react';

export interface Column {
  label: ReactNode;
  /** 'numeric' right-aligns the column; 'hide-narrow' drops it on small screens. */
  className?: string;
  /** A sortable column's order, for screen readers (the label holds the control that changes it). */
  sort?: 'ascending' | 'descending' | 'none';
}

/** A column the caller may not show (false or null), so a list can hold `owner && column`. */
export type MaybeColumn = string | Column | false | null | undefined;

/** A table's header row, each header scoped to its column so screen readers name every cell by it. */
export function TableHead({ columns }: { columns: readonly MaybeColumn[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, i) => {
          if (!column) return null;
          const { label, className, sort } = typeof column === 'string' ? { label: column, className: undefined, sort: undefined } : column;
          return (
            <th key={i} scope="col" className={className} aria-sort={sort}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
