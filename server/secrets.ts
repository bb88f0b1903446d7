// Connection strings are encrypted at rest with AES-256-GCM. The key comes from SECRET_KEY
// (any string; hashed to 32 bytes) or from a random key file created once in DATA_DIR with mode 0600.
// With DATABASE_URL the store is shared by every server process while each DATA_DIR is its own, so
// a key file would differ per process: there SECRET_KEY is required, the same for all of them.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from './private-files';

export interface Secrets {
  encrypt(plain: string): string;
  decrypt(sealed: string): string;
}

const VERSION = 'v1';

/** A secret sealed with another key (another server's secret.key, a changed SECRET_KEY) or damaged. */
export class SecretUnreadableError extends Error {}

export const MISSING_SHARED_KEY =
  'SECRET_KEY is required with DATABASE_URL: every server sharing that database must encrypt and decrypt connection strings ' +
  'with the same key (a secret.key file in each DATA_DIR would differ per server). Set SECRET_KEY to one long random string ' +
  '(e.g. `openssl rand -base64 32`) on every server.';

export function loadKey(options: { secretKey?: string; dataDir: string; sharedStore?: boolean }): Buffer {
  if (options.secretKey) return createHash('sha256').update(options.secretKey, 'utf8').digest();
  if (options.sharedStore) throw new Error(MISSING_SHARED_KEY);
  const file = path.join(options.dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  ensurePrivateDir(options.dataDir);
  const key = randomBytes(32);
  // 'wx' fails if another process created the file first; then read theirs.
  try {
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch {
    return loadKey(options);
  }
  chmodSync(file, 0o600);
  return key;
}

export function createSecrets(key: Buffer): Secrets {
  return {
    encrypt(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), data.toString('base64')].join(':');
    },
    decrypt(sealed) {
      const [version, iv, tag, data] = sealed.split(':');
      if (version !== VERSION || !iv || !tag || data === undefined) throw new SecretUnreadableError('a stored secret is not in a format this server knows');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
        decipher.setAuthTag(Buffer.from(tag, 'base64'));
        return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
      } catch {
        // GCM's own words ("unable to authenticate data") say nothing of the cause, which is the key
        throw new SecretUnreadableError(
          "a stored secret cannot be decrypted with this server's key: it was saved by a server with another SECRET_KEY " +
            '(or another DATA_DIR/secret.key). Give every server the same SECRET_KEY, or enter the secret again',
        );
      }
    },
  };
}
