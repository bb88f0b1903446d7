// What an audit entry changed, compactly: the fields whose value differs between before and after,
// each as JSON. Settings are objects (a policy, a member's role); anything else shows whole.
import { TableHead } from '../TableHead';

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

const json = (value: unknown) => (value === undefined ? '—' : JSON.stringify(value));

interface DiffRow {
  field: string;
  before: unknown;
  after: unknown;
}

/** The fields that differ; for a creation or deletion (one side null), every field of the other side. */
export function diffRows(before: unknown, after: unknown): DiffRow[] {
  if (!isRecord(before) && !isRecord(after)) return json(before) === json(after) ? [] : [{ field: '', before, after }];
  const b = isRecord(before) ? before : {};
  const a = isRecord(after) ? after : {};
  const fields = [...new Set([...Object.keys(b), ...Object.keys(a)])];
  return fields.filter((field) => json(b[field]) !== json(a[field])).map((field) => ({ field, before: b[field], after: a[field] }));
}

export function AuditChange({ before, after }: { before: unknown; after: unknown }) {
  if (before === null && after === null) return <span className="muted">—</span>;
  const rows = diffRows(before, after);
  if (rows.length === 0) return <span className="muted small">no change</span>;
  const onlyAfter = before === null;
  return (
    <details className="audit-change">
      <summary>{rows.length === 1 && rows[0]!.field ? rows[0]!.field : `${rows.length} field${rows.length === 1 ? '' : 's'}`}</summary>
      <table className="audit-diff">
        <TableHead columns={['Field', !onlyAfter && 'Before', onlyAfter ? 'Value' : 'After']} />
        <tbody>
          {rows.map((row) => (
            <tr key={row.field}>
              <th scope="row">{row.field || 'value'}</th>
              {onlyAfter ? null : (
                <td>
                  <code className="audit-before">{json(row.before)}</code>
                </td>
              )}
              <td>
                <code className="audit-after">{json(row.after)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </details>
  );
}
