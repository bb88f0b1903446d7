// Writes the audit log: one entry per change, with who made it, from where, what it touched and,
// for settings, what they were before and after. What a request sent is recorded only through an
// allow-list of its plain fields: a connection string, a webhook URL or secret, a token, a query
// text or a run's payload never reaches the log.
import type { Db } from '../db/store';
import { auditLog } from '../db/schema';
import { newId } from '../ids';
import { actorOf, type Principal } from '../auth/principal';

/** Fields never recorded, whatever procedure sent them. */
const NEVER = new Set(['connectionString', 'url', 'secret', 'token', 'query', 'queries', 'schema', 'formattedQuery']);
const MAX_VALUE = 200;

/** The plain, non-secret fields of a request: strings (cut), numbers, booleans, and short lists of them. */
export function recordableInput(input: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (NEVER.has(key)) continue;
    if (typeof value === 'string') out[key] = value.length > MAX_VALUE ? `${value.slice(0, MAX_VALUE)}…` : value;
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out[key] = value;
    else if (Array.isArray(value) && value.length <= 20 && value.every((v) => typeof v === 'string' || typeof v === 'number')) out[key] = value;
    else if (value && typeof value === 'object' && !Array.isArray(value) && key === 'conditions') out[key] = value;
  }
  return out;
}

/** The admin CLI run on the server's machine (server/admin.ts): no request, no principal. */
export interface CliActor {
  kind: 'cli';
  name: string;
}

export interface AuditEntryInput {
  principal: Principal | CliActor;
  sourceAddress?: string;
  action: string;
  environmentId?: string | null;
  target?: string | null;
  before?: unknown;
  after?: unknown;
}

export async function recordAudit(db: Db, entry: AuditEntryInput): Promise<void> {
  const actor = entry.principal.kind === 'cli' ? entry.principal : actorOf(entry.principal);
  await db.insert(auditLog).values({
    id: newId('aud'),
    actorKind: actor.kind,
    actor: actor.name,
    sourceAddress: entry.sourceAddress ?? null,
    action: entry.action,
    environmentId: entry.environmentId ?? null,
    target: entry.target ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
  });
}
