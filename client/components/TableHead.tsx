import type { ReactNode } from 'react';

export interface Column {
  label: ReactNode;
  /** 'numeric' right-aligns the column; 'hide-narrow' drops it on small screens. */
  className?: string;
}

/** A table's header row, each header scoped to its column so screen readers name every cell by it. */
export function TableHead({ columns }: { columns: readonly (string | Column)[] }) {
  return (
    <thead>
      <tr>
        {columns.map((column, i) => {
          const { label, className } = typeof column === 'string' ? { label: column, className: undefined } : column;
          return (
            <th key={i} scope="col" className={className}>
              {label}
            </th>
          );
        })}
      </tr>
    </thead>
  );
}
