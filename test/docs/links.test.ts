// Every relative link of the README pages and docs/*.md leads somewhere: the file exists and an
// #anchor names a heading of the page it points to, as GitHub makes heading anchors. Pure file reading.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../..');

interface Page {
  file: string;
  /** The folder its relative links start from. */
  base: string;
}

/** The README of the project and of each folder that has one. */
const READMES = ['', 'advisor', 'analyzer', 'gateway', 'cli', 'server', 'client', 'shared', 'bench'];

function pages(): Page[] {
  const docs = path.join(ROOT, 'docs');
  const list: Page[] = [];
  for (const folder of READMES) {
    const file = path.join(ROOT, folder, 'README.md');
    if (existsSync(file)) list.push({ file, base: path.join(ROOT, folder) });
  }
  for (const name of readdirSync(docs)
    .filter((n) => n.endsWith('.md'))
    .sort())
    list.push({ file: path.join(docs, name), base: docs });
  return list;
}

/** The lines outside fenced code blocks (``` or ~~~, closed by a fence at least as long). */
function proseLines(markdown: string): string[] {
  const out: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null) {
      if (opener) fence = opener;
      else out.push(line);
    } else if (opener && opener[0] === fence[0] && opener.length >= fence.length && line.trim() === opener) {
      fence = null;
    }
  }
  return out;
}

/** GitHub's anchor of a heading: its text lowercased, punctuation dropped, spaces made hyphens. */
function slug(heading: string): string {
  const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1');
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers; a repeated heading gets -1, -2, ... as GitHub numbers them. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of proseLines(markdown)) {
    const heading = /^#{1,6} +(.*?)(?: +#+)? *$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Inline links and images, outside code blocks and code spans; a destination holds no space. */
function links(markdown: string): string[] {
  const out: string[] = [];
  for (const line of proseLines(markdown)) {
    const prose = line.replace(/(`+)[^`]*?\1/g, '');
    for (const [, href] of prose.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) if (href) out.push(href);
  }
  return out;
}

/** What is wrong with each relative link of one page, in words; empty when every one resolves. */
function brokenLinks(markdown: string, base: string, self: string): string[] {
  const problems: string[] = [];
  for (const href of links(markdown)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/')) continue;
    const hash = href.indexOf('#');
    const target = hash < 0 ? href : href.slice(0, hash);
    const anchor = hash < 0 ? '' : href.slice(hash + 1);
    const file = target === '' ? self : path.resolve(base, decodeURIComponent(target));
    if (target === '') {
      if (!anchors(markdown).has(anchor)) problems.push(`${href}: no heading with the anchor #${anchor} in ${path.relative(ROOT, file)}`);
      continue;
    }
    if (!existsSync(file)) {
      problems.push(`${href}: no file ${path.relative(ROOT, file)}`);
      continue;
    }
    if (anchor === '') continue;
    if (statSync(file).isDirectory() || !file.endsWith('.md')) {
      problems.push(`${href}: an anchor into something that is not a Markdown page`);
    } else if (!anchors(readFileSync(file, 'utf8')).has(anchor)) {
      problems.push(`${href}: no heading with the anchor #${anchor} in ${path.relative(ROOT, file)}`);
    }
  }
  return problems;
}

describe('documentation links', () => {
  it.each(pages().map((p) => [path.relative(ROOT, p.file), p] as const))('%s: every relative link and anchor resolves', (_name, page) => {
    expect(brokenLinks(readFileSync(page.file, 'utf8'), page.base, page.file)).toEqual([]);
  });

  it('reports a missing page, a missing anchor and an anchor GitHub numbers, and ignores code', () => {
    const self = path.join(ROOT, 'docs', 'sample.md');
    const sample = [
      '# Sample',
      '## Benchmark: `npm run bench:read`',
      '## Limits',
      '## Limits',
      '[ok](#benchmark-npm-run-benchread) [ok](#limits-1) [ok](../README.md) [ok](https://example.com/x.md#y)',
      '[gone](nowhere.md) [wrong](#limits-2) `[in code](missing.md)`',
      '```md',
      '[in a fence](missing-too.md)',
      '```',
    ].join('\n');
    expect(brokenLinks(sample, path.dirname(self), self)).toEqual([
      'nowhere.md: no file docs/nowhere.md',
      '#limits-2: no heading with the anchor #limits-2 in docs/sample.md',
    ]);
  });
});
