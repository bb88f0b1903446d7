// The lean action: dist/ holds the CLI as one bundle that runs with nothing installed, and it is
// the bundle of the sources as they are (a rebuild gives the same bytes; otherwise someone changed
// the CLI or what it imports without `npm run build:cli`).
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { actionInvocation } from '../../cli/action-inputs';
import { BUNDLE_FILES, buildCli, DIST, ROOT } from '../../cli/build';
import { DEFAULT_AUDIENCE, ID_TOKEN_VARIABLE } from '../../cli/ci-report';
import { CODE_QUALITY_FILE } from '../../cli/code-quality';
import { runNode } from '../support/cli';

describe('the CLI bundle in dist/', () => {
  it('is what `npm run build:cli` builds from the sources now', async () => {
    const fresh = mkdtempSync(path.join(tmpdir(), 'qt-bundle-'));
    onTestFinished(() => rmSync(fresh, { recursive: true, force: true }));
    await buildCli(fresh);
    for (const file of BUNDLE_FILES) {
      const committed = readFileSync(path.join(DIST, file));
      const rebuilt = readFileSync(path.join(fresh, file));
      expect(committed.equals(rebuilt), `dist/${file} is stale: run \`npm run build:cli\` and commit dist/`).toBe(true);
    }
  });

  it('stays under 10 MB on disk', () => {
    const bytes = BUNDLE_FILES.reduce((sum, file) => sum + statSync(path.join(DIST, file)).size, 0);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);
  });

  it('runs on its own, outside the checkout (no node_modules): fingerprints a file of statements', async () => {
    const alone = mkdtempSync(path.join(tmpdir(), 'qt-alone-'));
    onTestFinished(() => rmSync(alone, { recursive: true, force: true }));
    for (const file of BUNDLE_FILES) cpSync(path.join(DIST, file), path.join(alone, file));
    const statements = path.join(alone, 'statements.sql');
    writeFileSync(statements, "SELECT * FROM carts WHERE id = 1;\nSELECT 'a;b' FROM carts WHERE id IN (1, 2, 3);\n");
    const result = await runNode(path.join(alone, 'querytrail.mjs'), ['ci-report', '--file', statements, '--dry-run', '--repo', 'acme/app', '--run-id', '1']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const run = JSON.parse(result.stdout) as { queries: { hash: string; formattedQuery: string }[] };
    expect(run.queries.map((q) => q.hash)).toEqual([expect.stringMatching(/^[0-9a-f]{16}$/), expect.stringMatching(/^[0-9a-f]{16}$/)]);
    expect(run.queries[1]!.formattedQuery).toMatch(/IN \(\$2, \$3, \$4\)/);
  });
});

describe('action.yml', () => {
  const yml = readFileSync(path.join(ROOT, 'action.yml'), 'utf8');

  it("runs the bundle with the runner's Node, installing nothing", () => {
    expect(yml).toMatch(/^runs:\n {2}using: node24\n {2}main: dist\/querytrail\.mjs\n?$/m);
    expect(yml).not.toMatch(/npm (ci|install)/);
  });

  it('has every input the bundle reads, and the bundle reads every input it declares', () => {
    const declared = [...yml.split('\nruns:')[0]!.matchAll(/^ {2}([a-z-]+):$/gm)].map((m) => m[1]!);
    expect(declared).toEqual(
      expect.arrayContaining(['api-url', 'database-url', 'token', 'github-token', 'wait', 'fail-on', 'strict', 'comment', 'format', 'app-url', 'schema']),
    );
    const base = { GITHUB_ACTIONS: 'true', 'INPUT_API-URL': 'https://qt.example.com/api' };
    const plain = actionInvocation(base);
    for (const name of declared.filter((n) => n !== 'api-url')) {
      const value = name === 'schema' ? 'false' : name === 'strict' ? 'true' : 'some-value';
      const changed = actionInvocation({ ...base, [`INPUT_${name.toUpperCase()}`]: value });
      expect(
        JSON.stringify(changed.argv) !== JSON.stringify(plain.argv) || JSON.stringify(changed.env) !== JSON.stringify(plain.env),
        `input ${name} is not read`,
      ).toBe(true);
    }
  });
});

describe('the GitLab CI template (ci/gitlab/querytrail.gitlab-ci.yml)', () => {
  const yml = readFileSync(path.join(ROOT, 'ci', 'gitlab', 'querytrail.gitlab-ci.yml'), 'utf8');
  const job = yml.split('\n.querytrail:\n')[1] ?? '';

  it('asks GitLab for the ID token ci-report reads, for the audience the server expects by default', () => {
    expect(job).toMatch(new RegExp(`^ {2}id_tokens:\\n {4}${ID_TOKEN_VARIABLE}:\\n {6}aud: ${DEFAULT_AUDIENCE}\\b`, 'm'));
  });

  it('keeps the Code Quality report ci-report writes, even when the verdict fails the job', () => {
    expect(job).toMatch(
      new RegExp(`^ {2}artifacts:\\n {4}when: always\\b[^\\n]*\\n {4}reports:\\n {6}codequality: ${CODE_QUALITY_FILE.replace(/\./g, '\\.')}$`, 'm'),
    );
  });

  it("runs the committed bundle (both its files) with the job's Node, installing nothing", () => {
    for (const file of BUNDLE_FILES) expect(job).toContain(`"$QUERYTRAIL_DIST_URL/${file}"`);
    expect(job).toMatch(/^ {4}- node \.querytrail\/querytrail\.mjs ci-report --db "\$DATABASE_URL"/m);
    expect(job).not.toMatch(/npm (ci|install)|npx/);
  });
});
