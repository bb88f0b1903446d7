// Growing and shrinking the shadow's relation files as the shadow's own OS user (see relation-files.ts:
// root never opens a path in the shadow's data directory). One small Node process per shadow
// server, started on first use and stopped with the server, takes lists of (file, size) on stdin
// and answers on stdout: a CI run's verdict resizes a hundred or more candidate files, and a
// process per file (or per shell loop of `truncate`) cost more than planning a query.
// It runs as the shadow's user with only PATH in its environment, and opens every file with
// O_NOFOLLOW; it can touch nothing that user could not.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { ShadowServer } from './types.js';

export interface Segment {
  file: string;
  bytes: number;
}

const SCRIPT = `
const fs = require('node:fs');
const { O_RDWR, O_CREAT, O_NOFOLLOW } = fs.constants;
process.umask(0o077);
require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
  const { id, grow, segments } = JSON.parse(line);
  let error = null;
  try {
    for (const [file, bytes] of segments) {
      let fd;
      try {
        fd = grow ? fs.openSync(file, O_RDWR | O_CREAT | O_NOFOLLOW, 0o600) : fs.openSync(file, O_RDWR | O_NOFOLLOW);
      } catch (e) {
        if (grow) throw e;
        continue; // a segment never created
      }
      try {
        const size = fs.fstatSync(fd).size;
        if (grow ? size < bytes : size > bytes) fs.ftruncateSync(fd, bytes);
      } finally {
        fs.closeSync(fd);
      }
    }
  } catch (e) {
    error = String((e && e.message) || e);
  }
  process.stdout.write(JSON.stringify({ id, error }) + '\\n');
});
`;

class FileResizer {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const { id, error } = JSON.parse(line) as { id: number; error: string | null };
      const w = this.waiting.get(id);
      this.waiting.delete(id);
      if (error) w?.reject(new Error(`resizing the shadow's files: ${error}`));
      else w?.resolve();
    });
    child.on('exit', () => this.fail(new Error("the shadow's file resizer stopped")));
    child.on('error', (e) => this.fail(e));
    // an idle resizer must not keep the process alive
    child.unref();
    for (const stream of [child.stdin, child.stdout, child.stderr]) (stream as unknown as { unref?: () => void } | null)?.unref?.();
  }

  static async start(owner: { uid: number; gid: number }): Promise<FileResizer> {
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      uid: owner.uid,
      gid: owner.gid,
      cwd: '/',
      env: { PATH: process.env.PATH },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    await once(child, 'spawn');
    return new FileResizer(child);
  }

  get alive(): boolean {
    return !this.failure;
  }

  resize(segments: Segment[], grow: boolean): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.stdin!.write(`${JSON.stringify({ id, grow, segments: segments.map((s) => [s.file, s.bytes]) })}\n`);
    });
  }

  stop(): void {
    this.fail(new Error("the shadow's file resizer was stopped"));
    this.child.kill();
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
  }
}

const resizers = new WeakMap<ShadowServer, Promise<FileResizer>>();

/**
 * Resizes `segments` as `owner` through the server's resizer; false when no resizer can run (the
 * Node binary not executable by that user, say): the caller then resizes another way.
 */
export async function resizeAsOwner(server: ShadowServer, owner: { uid: number; gid: number }, segments: Segment[], grow: boolean): Promise<boolean> {
  let resizer = resizers.get(server);
  if (!resizer) resizers.set(server, (resizer = FileResizer.start(owner)));
  const started = await resizer.catch(() => undefined);
  if (!started?.alive) {
    resizers.delete(server);
    return false;
  }
  await started.resize(segments, grow);
  return true;
}

/** Stops the server's resizer, if it started one (with the server). */
export function stopResizer(server: ShadowServer): void {
  void resizers
    .get(server)
    ?.then((r) => r.stop())
    .catch(() => undefined);
  resizers.delete(server);
}
