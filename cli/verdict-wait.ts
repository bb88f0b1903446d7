// Waiting for a CI run's verdict: GET /api/ci/runs/{id}/verdict until it is no longer pending,
// printing how far the analysis is. An unreachable or failing querytrail is an answer too (the
// caller warns instead of blocking the merge), so nothing here throws for it.
import { verdictSchema, type Verdict } from '../shared/policy';
import { describeFetchError } from './fetch-errors';
import type { Io } from './ci-types';

export type VerdictWait =
  /** `raw` is the body as the API sent it (--format json prints it unchanged). */
  | { type: 'verdict'; verdict: Verdict; raw: string }
  | { type: 'timeout'; waitedSeconds: number; last?: Verdict; lastRaw?: string }
  | { type: 'unreachable'; reason: string };

export interface WaitOptions {
  /** The API base (apiBase), e.g. http://host:3000/api. */
  api: string;
  runId: string;
  token?: string;
  waitSeconds: number;
  /** Per request; the verdict is computed on read, so an answer is quick when querytrail is well. */
  requestTimeoutMs?: number;
  /** Progress lines ("pending: Analyzing: 12 of 50"). */
  progress: Io['out'];
}

/** Failed requests in a row before querytrail counts as unreachable (one blip is retried). */
const MAX_FAILURES = 3;
/** Polls start fast (a verdict from the cache is ready in a second) and slow down to this. */
const MAX_POLL_MS = 2_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Poll = { ok: true; verdict: Verdict; raw: string } | { ok: false; reason: string };

async function readVerdict(url: string, headers: Record<string, string>, timeoutMs: number): Promise<Poll> {
  let response: Response;
  let text: string;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(timeoutMs) });
    text = await response.text();
  } catch (error) {
    return { ok: false, reason: `cannot reach ${url}: ${describeFetchError(error)}` };
  }
  if (!response.ok) {
    let message = text.slice(0, 300);
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {
      // a proxy's page: its start is the best we have
    }
    return { ok: false, reason: `${url} answered ${response.status}: ${message}` };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, reason: `${url} answered ${response.status} with something that is not JSON: ${text.slice(0, 200)}` };
  }
  const verdict = verdictSchema.safeParse(parsed);
  if (!verdict.success) return { ok: false, reason: `${url} answered a verdict this ci-report does not understand (a newer or older querytrail?)` };
  return { ok: true, verdict: verdict.data, raw: text };
}

export async function waitForVerdict(options: WaitOptions): Promise<VerdictWait> {
  const url = `${options.api}/ci/runs/${encodeURIComponent(options.runId)}/verdict`;
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const started = Date.now();
  const deadline = started + options.waitSeconds * 1000;
  const requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
  let failures = 0;
  let lastReason = '';
  let last: Verdict | undefined;
  let lastRaw: string | undefined;
  let pollMs = 250;
  options.progress(`querytrail: waiting up to ${options.waitSeconds} s for the verdict of ${options.runId}`);
  for (;;) {
    const left = deadline - Date.now();
    const poll = await readVerdict(url, headers, Math.max(1_000, Math.min(requestTimeoutMs, left)));
    if (poll.ok) {
      failures = 0;
      if (poll.verdict.status !== 'pending') return { type: 'verdict', verdict: poll.verdict, raw: poll.raw };
      last = poll.verdict;
      lastRaw = poll.raw;
      const reason = poll.verdict.reason ?? 'pending';
      if (reason !== lastReason) {
        options.progress(`querytrail: ${reason} (${Math.round((Date.now() - started) / 1000)} s)`);
        lastReason = reason;
      }
    } else {
      failures += 1;
      if (failures >= MAX_FAILURES) return { type: 'unreachable', reason: poll.reason };
    }
    if (Date.now() + pollMs > deadline) {
      return { type: 'timeout', waitedSeconds: Math.round((Date.now() - started) / 1000), last, lastRaw };
    }
    await sleep(pollMs);
    pollMs = Math.min(MAX_POLL_MS, pollMs * 2);
  }
}
