import type { DisabledIndex } from '../../../shared/analyzer-schema';
import { Badge } from '../Badge';
import { EmptyState } from '../States';

export function DisabledIndexes({ indexes }: { indexes: DisabledIndex[] }) {
  if (indexes.length === 0) return <EmptyState title="No disabled indexes: the planner can use every index." />;
  return (
    <ul className="plain-list">
      {indexes.map((index) => (
        <li key={`${index.schema}.${index.name}`} className="disabled-index">
          <div>
            <strong>{index.name}</strong>{' '}
            <span className="muted small">
              on {index.schema}.{index.table}
            </span>{' '}
            <Badge tone="danger">{index.reason === 'invalid' ? 'invalid' : 'not ready'}</Badge>
          </div>
          <p>{index.message}</p>
          <pre className="sql sql-compact">
            <code>{index.definition}</code>
          </pre>
        </li>
      ))}
    </ul>
  );
}
