// One process per PGlite folder. PGlite has no lock of its own: two servers on one DATA_DIR both
// write the same cluster files and lose each other's commits. The first process creates a lock file
// holding its pid (an exclusive create, so two starting at once cannot both win) and removes it on
// exit; a lock whose pid is no longer running (the process was killed) is stale and taken over.
import { existsSync, linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import path from 'node:path';

export class FolderLockedError extends Error {}

export interface FolderLock {
  file: string;
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
}

function readHolder(file: string): Holder | undefined {
  try {
    const [pid, host] = readFileSync(file, 'utf8').trim().split(/\s+/);
    const n = Number(pid);
    return Number.isInteger(n) && n > 0 ? { pid: n, host: host ?? '' } : undefined;
  } catch {
    return undefined; // gone meanwhile
  }
}

function isRunning(pid: number): boolean {
  if (pid === process.pid) return false; // our own pid from an earlier life (a container's pid 1)
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // running, as another user
  }
}

/** Creates `file` holding our pid only if no file is there (link() never replaces). */
function tryCreate(file: string): boolean {
  const draft = `${file}.${process.pid}.${Date.now()}`;
  writeFileSync(draft, `${process.pid} ${hostname()}\n`, { mode: 0o600 });
  try {
    linkSync(draft, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(draft);
  }
}

/**
 * Removes a stale lock. Two processes may find the same stale lock at once: the removal itself is
 * guarded by a second lock file (`.takeover`) so one of them cannot remove the fresh lock the other
 * has just created.
 */
function removeStale(file: string, stale: Holder): void {
  const guard = `${file}.takeover`;
  if (!tryCreate(guard)) {
    const holder = readHolder(guard);
    if (holder && !isRunning(holder.pid)) unlinkSync(guard); // its taker died meanwhile; try again next round
    return;
  }
  try {
    const now = readHolder(file);
    if (now && now.pid === stale.pid) unlinkSync(file);
  } finally {
    unlinkSync(guard);
  }
}

/** Takes the folder's lock for the life of the process, or throws FolderLockedError naming the holder. */
export function lockFolder(dir: string, what: string): FolderLock {
  const file = path.join(dir, 'querytrail.lock');
  for (let attempt = 0; attempt < 5; attempt++) {
    if (tryCreate(file)) {
      const release = () => {
        if (readHolder(file)?.pid === process.pid) unlinkSync(file);
        process.off('exit', release);
      };
      process.on('exit', release);
      return { file, release };
    }
    const holder = readHolder(file);
    if (holder && isRunning(holder.pid) && (!holder.host || holder.host === hostname())) {
      throw new FolderLockedError(
        `${what} is in use by another querytrail process (pid ${holder.pid}): only one server may use a PGlite folder. ` +
          `Stop that server, give this one another DATA_DIR, or set DATABASE_URL so several servers share one PostgreSQL. ` +
          `(Lock file: ${file}; remove it only if pid ${holder.pid} is not querytrail.)`,
      );
    }
    if (holder && holder.host && holder.host !== hostname()) {
      throw new FolderLockedError(
        `${what} is locked by pid ${holder.pid} on host ${holder.host}: only one server may use a PGlite folder. ` + `If that server is gone, remove ${file}.`,
      );
    }
    if (holder) removeStale(file, holder);
    else if (existsSync(file)) {
      // written but not readable yet by a process creating it this instant, or empty: wait a moment
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
    }
  }
  throw new FolderLockedError(`${what} could not be locked (${file}); another querytrail process may be starting on it`);
}
