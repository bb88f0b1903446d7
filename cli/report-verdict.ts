// After the run is posted: wait for its verdict, show it (text, Markdown or the API's JSON), tell
// the CI it runs in (GitHub, GitLab), and decide the exit code. The verdict decides the code (--fail-on); querytrail being
// away (unreachable, 5xx, still pending when the wait ends) is a warning and 0 unless --strict.
import type { Verdict } from '../shared/policy';
import type { Io, RunFields } from './ci-types';
import { ciProviderOf } from './ci-provider';
import type { CommentMode } from './verdict-note';
import { verdictMarkdown, verdictText, type VerdictContext } from './verdict-format';
import { waitForVerdict } from './verdict-wait';

export const FORMATS = ['text', 'markdown', 'json'] as const;
export type Format = (typeof FORMATS)[number];
export const FAIL_ON = ['fail', 'warn', 'never'] as const;
export type FailOn = (typeof FAIL_ON)[number];

export interface VerdictOptions {
  /** The API base (apiBase). */
  api: string;
  /** The SPA's base, for the run's page. */
  appUrl: string;
  token?: string;
  /** querytrail's id of the stored run. */
  id: string;
  fields: RunFields;
  waitSeconds: number;
  failOn: FailOn;
  strict: boolean;
  comment: CommentMode;
  /** GitLab's Code Quality report file (--codequality); gl-code-quality-report.json when absent. */
  codequality?: string;
  format: Format;
}

/** The run's page in the SPA, as a link safe inside Markdown's (...). */
export function runLink(appUrl: string, id: string): string {
  return `${appUrl.replace(/\/+$/, '')}/ci/${encodeURIComponent(id)}`.replace(/\(/g, '%28').replace(/\)/g, '%29');
}

export function exitCodeFor(verdict: Verdict, failOn: FailOn): number {
  if (verdict.status === 'fail') return failOn === 'never' ? 0 : 1;
  if (verdict.status === 'warn') return failOn === 'warn' ? 1 : 0;
  return 0;
}

/** The warning for "no verdict", and the exit code it leaves: 0, so querytrail never blocks a merge, unless --strict. */
export function noVerdict(io: Io, strict: boolean, what: string): number {
  const consequence = strict ? 'failing because of --strict' : 'exiting 0 so that querytrail being away does not block the merge (--strict fails instead)';
  io.err(`querytrail: warning: ${what}; ${consequence}`);
  return strict ? 1 : 0;
}

export async function reportVerdict(options: VerdictOptions, env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  // stdout carries the verdict in the format asked for; with Markdown or JSON everything else goes to stderr
  const say = options.format === 'text' ? io.out : io.err;
  const context: VerdictContext = {
    id: options.id,
    runId: options.fields.runId,
    repo: options.fields.repo,
    commitSha: options.fields.commitSha,
    link: runLink(options.appUrl, options.id),
  };
  if (options.waitSeconds === 0) {
    say(`querytrail: verdict not awaited (--wait 0): ${context.link}`);
    return 0;
  }

  const waited = await waitForVerdict({ api: options.api, runId: options.id, token: options.token, waitSeconds: options.waitSeconds, progress: say });
  if (waited.type === 'unreachable') return noVerdict(io, options.strict, `no verdict: ${waited.reason}`);
  if (waited.type === 'timeout') {
    if (options.format === 'json' && waited.lastRaw) io.out(waited.lastRaw);
    const still = waited.last?.reason ? ` (${waited.last.reason})` : '';
    return noVerdict(
      io,
      options.strict,
      `no verdict after ${waited.waitedSeconds} s, still pending${still}; it will be on ${context.link} (--wait gives it longer)`,
    );
  }

  const { verdict } = waited;
  if (options.format === 'json') io.out(waited.raw.trim());
  else if (options.format === 'markdown') io.out(verdictMarkdown(verdict, context).trimEnd());
  else for (const line of verdictText(verdict, context)) io.out(line);

  await ciProviderOf(env).publish(env, {
    verdict,
    context,
    pullRequest: options.fields.pullRequest,
    comment: options.comment,
    codequality: options.codequality,
    annotate: options.format === 'json' ? io.err : io.out,
    say,
    warn: io.err,
  });
  return exitCodeFor(verdict, options.failOn);
}
