// Everything querytrail keeps under DATA_DIR (the PGlite store with its WAL and configuration, the
// encryption key) is readable and writable by its own user only: directories 0700, files 0600.
// PGlite does not follow the process umask for every file (its initial cluster is unpacked 0666),
// and a store created by an older version may be world-readable, so modes are also set explicitly.
import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const PRIVATE_DIR_MODE = 0o700;

/**
 * chmod that tolerates a file removed meanwhile (PGlite deletes and renames files while it runs),
 * and says so instead of stopping the server when a file cannot be changed (a read-only mount).
 */
function chmodIfPresent(file: string, mode: number): void {
  try {
    chmodSync(file, mode);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') console.warn(`querytrail: cannot make ${file} private (${code ?? 'error'}); other users may be able to read it`);
  }
}

/** Creates a directory (and missing parents) as 0700, and makes an existing one 0700 when it is ours. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const stat = statSync(dir);
  // never a shared directory such as /tmp (sticky) or one another user owns
  const ours = typeof process.getuid !== 'function' || stat.uid === process.getuid();
  if (ours && !(stat.mode & 0o1000) && (stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodIfPresent(dir, PRIVATE_DIR_MODE);
}

/** Makes a tree private: directories 0700, files without group or other bits. Symbolic links are left alone, never followed. */
export function makeTreePrivate(root: string): void {
  let stat;
  try {
    stat = lstatSync(root);
  } catch {
    return; // nothing there yet
  }
  if (stat.isSymbolicLink()) return;
  if (stat.isDirectory()) {
    if ((stat.mode & 0o777) !== PRIVATE_DIR_MODE) chmodIfPresent(root, PRIVATE_DIR_MODE);
    let entries: string[] = [];
    try {
      entries = readdirSync(root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    for (const entry of entries) makeTreePrivate(path.join(root, entry));
  } else if (stat.isFile() && stat.mode & 0o077) {
    // only the group and other bits go: a file its owner made read-only stays read-only
    chmodIfPresent(root, stat.mode & 0o700);
  }
}

/** What querytrail writes under DATA_DIR, made private: the folder itself, the PGlite store, the key file. */
export function makeDataDirPrivate(dataDir: string): void {
  try {
    statSync(dataDir);
  } catch {
    return; // created private when first needed
  }
  ensurePrivateDir(dataDir);
  makeTreePrivate(path.join(dataDir, 'pglite'));
  makeTreePrivate(path.join(dataDir, 'secret.key'));
}
