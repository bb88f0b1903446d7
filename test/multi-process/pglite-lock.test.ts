// One server per PGlite folder: PGlite has no lock of its own, and two processes writing one
// cluster lose commits. The second server refuses with a message; the folder is free again once the
// first stops, or once it was killed (its lock names a pid that no longer runs).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { requestJson } from '../support/api';
import { listening, startServerProcess } from './server-process';

describe('one server per PGlite DATA_DIR', () => {
  it('refuses a second server on the folder, and lets one start after the first stopped or was killed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'qt-lock-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const first = await listening(startServerProcess({ DATA_DIR: dir }));
    expect((await requestJson(`${first.url}/api/env`, { method: 'POST', json: { name: 'Kept', slug: 'kept' } })).status).toBe(201);

    const second = await startServerProcess({ DATA_DIR: dir });
    expect(second.listening).toBe(false);
    if (second.listening) return;
    expect(second.code).toBe(1);
    expect(second.output).toContain(`is in use by another querytrail process (pid ${first.pid}): only one server may use a PGlite folder`);
    expect(second.output).not.toMatch(/^\s+at /m); // a message, not a stack trace

    expect(await first.stop()).toBe(0);
    const third = await listening(startServerProcess({ DATA_DIR: dir }));
    expect((await requestJson(`${third.url}/api/env`)).body.map((e: { slug: string }) => e.slug)).toEqual(['kept']);

    await third.kill(); // no cleanup: its lock file stays, naming a pid that is gone
    const fourth = await listening(startServerProcess({ DATA_DIR: dir }));
    expect((await requestJson(`${fourth.url}/api/env`)).status).toBe(200);
    expect(await fourth.stop()).toBe(0);
  }, 180_000);
});
