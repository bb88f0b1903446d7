// The shapes ci-report and the CI providers share: the terminal, the run's fields, a verdict to show
// and what a CI is to ci-report. Types only, so every part of the CLI can name them without importing
// the others.
import type { IngestRunInput } from '../shared/ci';
import type { Verdict } from '../shared/policy';
import type { VerdictContext } from './verdict-format';
import type { CommentMode } from './verdict-note';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

export type RunFields = Omit<IngestRunInput, 'queries' | 'schema'>;

/** A verdict to show, and how ci-report was asked to show it. */
export interface VerdictReport {
  verdict: Verdict;
  context: VerdictContext;
  pullRequest?: number;
  comment: CommentMode;
  /** Where GitLab's Code Quality report goes (--codequality); GitHub has none. */
  codequality?: string;
  /** Where annotation lines go (stdout, unless stdout carries --format json). */
  annotate: Io['out'];
  /** Progress and outcome lines. */
  say: Io['out'];
  warn: Io['err'];
}

export interface CiProvider {
  /** Its name in messages, e.g. "GitHub Actions". */
  name: string;
  /** What the CI says about the run; flags and a run.json override these. */
  runFields(env: NodeJS.ProcessEnv): Partial<RunFields>;
  /** The variables the repository and the run id come from, for the error when they are missing. */
  variables: { repo: string; runId: string };
  /** The ways a job of this CI authenticates, for the hint of a 401 or 403. */
  credentialWays: string;
  /** Shows the verdict where developers look. Never changes the exit code: a refusal is a warning. */
  publish(env: NodeJS.ProcessEnv, report: VerdictReport): Promise<void>;
}
