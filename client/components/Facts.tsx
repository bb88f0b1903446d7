import type { ReactNode } from 'react';

/** A row of labelled figures (a <dl>); `small` for the compact ones inside a card's item. */
export function Facts({ small = false, className, children }: { small?: boolean; className?: string; children: ReactNode }) {
  return <dl className={['facts', small ? 'facts-small' : undefined, className].filter(Boolean).join(' ')}>{children}</dl>;
}

/** One figure of a <Facts>: its label, and its value (with `title` shown on hover). */
export function Fact({ term, title, className, children }: { term: string; title?: string; className?: string; children: ReactNode }) {
  return (
    <div className={className}>
      <dt>{term}</dt>
      <dd title={title}>{children}</dd>
    </div>
  );
}
