// Loading, empty and error states, the same everywhere.
import type { ReactNode } from 'react';
import { apiCodeOf, messageOf } from '../lib/errors';

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div className="state state-loading" role="status" aria-live="polite">
      <span className="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="state state-empty">
      <p className="state-title">{title}</p>
      {children ? <div className="state-body">{children}</div> : null}
    </div>
  );
}

/** An action's failure, announced when it appears: its message, under `title` when there is one. */
export function ErrorCallout({ title, children }: { title?: string; children: ReactNode }) {
  return (
    <div className="callout callout-danger" role="alert">
      {title ? <p className="callout-title">{title}</p> : null}
      <p>{children}</p>
    </div>
  );
}

/**
 * A failed load: `title`, then the server's message (a 403's names the role or scope needed), and a
 * retry unless the caller is refused, which asking again does not change.
 */
export function ErrorState({ title = 'Something went wrong', error, onRetry }: { title?: string; error: unknown; onRetry?: () => void }) {
  const code = apiCodeOf(error);
  const refused = code === 'forbidden' || code === 'unauthorized';
  return (
    <div className="state state-error" role="alert">
      <p className="state-title">{title}</p>
      <p className="state-body">{messageOf(error)}</p>
      {onRetry && !refused ? (
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/**
 * Why a page's subject (`what`: "CI run") did not load: when the API says it does not exist, a "not
 * found" heading, `notFound` and `children` (the way back); any other failure, the error and a retry.
 */
export function LoadFailure({
  what,
  error,
  onRetry,
  notFound,
  children,
}: {
  what: string;
  error: unknown;
  onRetry: () => void;
  notFound: string;
  children: ReactNode;
}) {
  if (apiCodeOf(error) !== 'not_found') return <ErrorState title={`The ${what} could not be loaded`} error={error} onRetry={onRetry} />;
  return (
    <>
      <h1>{`${what[0]!.toUpperCase()}${what.slice(1)} not found`}</h1>
      <EmptyState title={notFound}>{children}</EmptyState>
    </>
  );
}

/** What a loading query holds: tRPC's and TanStack Query's results both fit. */
export interface QueryLike<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

interface LoadedProps<T> {
  query: QueryLike<T>;
  /** What the spinner says while it loads. */
  loading: string;
  /** The heading of the error shown when it cannot. */
  failed: string;
  /** Shown instead of `children` when the data is an empty list. */
  empty?: ReactNode;
  children: (data: T) => ReactNode;
}

/** A query's loading, failed and empty states, the same everywhere; `children` renders its data once loaded. */
export function Loaded<T>({ query, loading, failed, empty, children }: LoadedProps<T>) {
  if (query.isPending) return <Loading label={loading} />;
  if (query.isError) return <ErrorState title={failed} error={query.error} onRetry={() => query.refetch()} />;
  if (empty !== undefined && Array.isArray(query.data) && query.data.length === 0) return <>{empty}</>;
  return <>{children(query.data as T)}</>;
}
