// The audit entry of one successful change made through the API: called by the procedure guard
// (server/trpc.ts) for every mutation the access table does not exempt, so no change goes unrecorded.
import type { Context } from '../context';
import { logUnexpectedError } from '../error-log';
import { recordableInput, recordAudit } from './record';

/** The input's identifiers, decoded as the input schemas decode path parameters. */
function decodedString(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return value.includes('%') ? decodeURIComponent(value) : value;
  } catch {
    return value;
  }
}

/** What a change is about beyond its environment: the first identifier the input or the answer names. */
const TARGET_FIELDS = ['connectionId', 'webhookId', 'tokenId', 'email', 'repo', 'hash', 'runId'] as const;

export async function auditChange(
  ctx: Context,
  change: {
    path: string;
    input: Record<string, unknown>;
    before: unknown;
    output: unknown;
    settings?: (db: Context['store']['db'], input: Record<string, unknown>) => Promise<unknown>;
  },
): Promise<void> {
  if (!ctx.principal) return;
  const output = change.output && typeof change.output === 'object' ? (change.output as Record<string, unknown>) : {};
  const createdId = typeof output.id === 'string' ? output.id : undefined;
  const envScoped = !change.path.startsWith('tokens.') && !change.path.startsWith('me.') && !change.path.startsWith('demo.');
  const environmentId = envScoped ? (change.path === 'env.create' ? createdId : decodedString(change.input.id)) : undefined;
  const named = TARGET_FIELDS.map((field) => decodedString(change.input[field])).find((v) => v !== undefined);
  const target = named ?? (change.path.startsWith('tokens.') ? (decodedString(change.input.id) ?? createdId) : createdId) ?? environmentId ?? null;
  try {
    const after = change.settings ? await change.settings(ctx.store.db, change.input) : recordableInput(change.input);
    await recordAudit(ctx.store.db, {
      principal: ctx.principal,
      sourceAddress: ctx.sourceAddress,
      action: change.path,
      environmentId,
      target,
      before: change.settings ? change.before : undefined,
      after,
    });
  } catch (error) {
    // the change is made: failing the request now would invite a retry that makes it twice
    logUnexpectedError(`audit ${change.path}`, error);
  }
}
