// How the server starts: key file, refusal to expose itself, the embedded store surviving restarts.
import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createSecrets, loadKey } from './secrets';
import { openStore } from './db/store';
import { environments } from './db/schema';

const run = promisify(execFile);
const tmp = () => mkdtempSync(path.join(tmpdir(), 'qt-start-'));

describe('secrets', () => {
  it('creates a 0600 key file once and decrypts what it encrypted; a wrong key cannot', () => {
    const dir = tmp();
    const key = loadKey({ dataDir: dir });
    expect(statSync(path.join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(loadKey({ dataDir: dir }).equals(key)).toBe(true);
    const sealed = createSecrets(key).encrypt('postgres://u:pw@h/db');
    expect(sealed).not.toContain('pw@h');
    expect(createSecrets(key).decrypt(sealed)).toBe('postgres://u:pw@h/db');
    expect(() => createSecrets(loadKey({ dataDir: dir, secretKey: 'other' })).decrypt(sealed)).toThrow();
  });
});

describe('embedded store', () => {
  it('keeps data in DATA_DIR across restarts', async () => {
    const dir = tmp();
    const first = await openStore({ dataDir: dir });
    await first.db.insert(environments).values({ id: 'env_keep', name: 'Keep', slug: 'keep' });
    await first.close();
    const second = await openStore({ dataDir: dir });
    expect((await second.db.select().from(environments)).map((e) => e.slug)).toEqual(['keep']);
    await second.close();
  });
});

describe('npm start', () => {
  it('refuses to listen on a non-loopback host without API_TOKEN', async () => {
    const result = await run('npx', ['tsx', 'server/main.ts'], {
      env: { ...process.env, HOST: '0.0.0.0', PORT: '0', DATA_DIR: tmp(), API_TOKEN: '', ALLOW_UNAUTHENTICATED: '' },
    }).catch((e: { code: number; stderr: string }) => e);
    expect((result as { code: number }).code).toBe(1);
    expect((result as { stderr: string }).stderr).toContain('Refusing to listen on 0.0.0.0 without API_TOKEN');
  });
});
