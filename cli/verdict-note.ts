// The verdict as ONE note in a code review's conversation (a GitHub pull request's comment, a GitLab
// merge request's note): created by the first run that has something to say, then edited in place
// by every later run, found by a hidden marker whichever page of the conversation it is on, so a
// review never collects a note per push. The forge's API is behind NoteThread; what to write, and
// whether to write at all, is decided here once for every forge.
import { VERDICT_STATUSES, type VerdictStatus } from '../shared/policy';

/** The hidden marker; the status it carries lets the next run say "passes now". */
const MARKER_PREFIX = '<!-- querytrail:ci-verdict';
const MARKER = /<!-- querytrail:ci-verdict(?: status=(\w+))? -->/;

export const COMMENT_MODES = ['always', 'on-findings', 'never'] as const;
export type CommentMode = (typeof COMMENT_MODES)[number];

export interface Note {
  id: number;
  body?: string | null;
  url?: string;
}

/** One conversation on a forge: its notes page by page, and writing one. */
export interface NoteThread {
  /** The conversation's notes, a page at a time (stop reading once ours is found). */
  pages(): AsyncIterable<Note[]>;
  create(body: string): Promise<Note>;
  update(id: number, body: string): Promise<Note>;
}

export type NoteOutcome = { type: 'created' | 'updated'; id: number; url?: string } | { type: 'skipped'; why: string } | { type: 'failed'; message: string };

export interface NoteRequest {
  status: VerdictStatus;
  mode: CommentMode;
  /** The note's Markdown, given what the existing note said (undefined: there is none). */
  body(previous: VerdictStatus | undefined): string;
  warn(message: string): void;
}

/** Whether a verdict is news enough to start a conversation ("on-findings": not a first pass). */
const hasFindings = (status: VerdictStatus) => status === 'fail' || status === 'warn';

/** Creates or updates the one note; a forge's failure is worded by `describe` and returned, never thrown. */
export async function upsertVerdictNote(thread: NoteThread, request: NoteRequest, describe: (error: unknown) => string): Promise<NoteOutcome> {
  if (request.mode === 'never') return { type: 'skipped', why: '--comment never' };
  try {
    let existing: Note | undefined;
    for await (const page of thread.pages()) {
      existing = page.find((note) => note.body?.includes(MARKER_PREFIX));
      if (existing) break;
    }
    const previousText = existing?.body ? MARKER.exec(existing.body)?.[1] : undefined;
    const previous = VERDICT_STATUSES.find((s) => s === previousText) ?? (existing ? 'fail' : undefined);
    if (!existing && request.mode === 'on-findings' && !hasFindings(request.status)) {
      return { type: 'skipped', why: `the verdict is ${request.status} and no comment was needed before` };
    }
    const body = `${MARKER_PREFIX} status=${request.status} -->\n${request.body(existing ? previous : undefined)}`;
    const written = existing ? await thread.update(existing.id, body) : await thread.create(body);
    return { type: existing ? 'updated' : 'created', id: written.id, url: written.url };
  } catch (error) {
    return { type: 'failed', message: describe(error) };
  }
}

/** How a forge's note is named in ci-report's log: "the comment on acme/app#7", "the note on acme/shop!12". */
export interface NoteWords {
  /** "pull request", "merge request" */
  review: string;
  /** "comment", "note" */
  note: string;
  /** Where it is, e.g. acme/app#7. */
  where: string;
  /** Said after a written note, e.g. its URL. */
  detail?: string;
}

/** Says what became of the note: written (say), not needed (say), or refused (warn; never the exit code). */
export function sayNoteOutcome(outcome: NoteOutcome, words: NoteWords, say: (line: string) => void, warn: (line: string) => void): void {
  switch (outcome.type) {
    case 'created':
    case 'updated':
      say(`querytrail: ${outcome.type} the ${words.note} on ${words.where}${words.detail ?? (outcome.url ? ` (${outcome.url})` : '')}`);
      break;
    case 'skipped':
      say(`querytrail: no ${words.review} ${words.note}: ${outcome.why}`);
      break;
    case 'failed':
      warn(`querytrail: warning: the ${words.review} ${words.note} was not written: ${outcome.message}`);
      break;
  }
}
