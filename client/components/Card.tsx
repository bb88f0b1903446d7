import type { ReactNode } from 'react';

/**
 * A titled part of a page: a region named by its heading (so it is found by its title), with a
 * count beside the title when there is one.
 */
export function Card({
  id,
  title,
  count,
  className,
  sectionId,
  children,
}: {
  /** The heading's id; the region is labelled by it. */
  id: string;
  title: ReactNode;
  count?: ReactNode;
  /** 'card-danger' for destructive actions. */
  className?: string;
  /** An anchor to link to the region. */
  sectionId?: string;
  children: ReactNode;
}) {
  return (
    <section className={className ? `card ${className}` : 'card'} aria-labelledby={id} id={sectionId}>
      <h2 id={id} className="card-title">
        {title}
        {count !== undefined ? (
          <>
            {' '}
            <span className="count">{count}</span>
          </>
        ) : null}
      </h2>
      {children}
    </section>
  );
}
