// Writing a large JSON answer without building it: a sink that respects the socket's backpressure,
// and spools that hold the items of one JSON array (as text) until the answer is written. A spool
// keeps its text in memory while all spools together stay under a budget, and moves it to a file of
// its own beyond that, so memory does not grow with the database. The files live in a folder only
// this process's user can read, and are removed when the answer is done (or abandoned).
import { closeSync, mkdtempSync, openSync, rmSync, writeSync, createReadStream } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Where JSON text goes; `write` resolves when more may be written. */
export interface JsonSink {
  write(text: string | Buffer): Promise<void>;
}

/** A sink over an HTTP response (or any writable stream): waits for 'drain', fails once it is closed. */
export function streamSink(stream: NodeJS.WritableStream & { writableEnded?: boolean; destroyed?: boolean }): JsonSink & { closed(): boolean } {
  let closed = false;
  stream.on('close', () => (closed = true));
  stream.on('error', () => (closed = true));
  return {
    closed: () => closed || stream.destroyed === true,
    write: (text) =>
      new Promise<void>((resolve, reject) => {
        if (closed || stream.destroyed) {
          reject(new Error('The client went away before the answer was written'));
          return;
        }
        if (stream.write(text)) {
          resolve();
          return;
        }
        const done = (error?: unknown) => {
          stream.removeListener('drain', onDrain);
          stream.removeListener('close', onClose);
          if (error) reject(error);
          else resolve();
        };
        const onDrain = () => done();
        const onClose = () => done(new Error('The client went away before the answer was written'));
        stream.once('drain', onDrain);
        stream.once('close', onClose);
      }),
  };
}

/** A sink that keeps everything, for callers that want the answer as one value (small databases). */
export function memorySink(): JsonSink & { text(): string } {
  // Buffers from a spool's file may end inside a character: decoded once, at the end.
  const parts: Buffer[] = [];
  return {
    write: async (text) => {
      parts.push(typeof text === 'string' ? Buffer.from(text, 'utf8') : text);
    },
    text: () => Buffer.concat(parts).toString('utf8'),
  };
}

/** The spools of one answer, sharing a memory budget and a temp folder. */
export class SpoolSet {
  private readonly spools: Spool[] = [];
  private folder: string | undefined;
  /** Characters held in memory by all spools. */
  inMemory = 0;
  /** Characters moved to files. */
  spilled = 0;

  constructor(private readonly memoryBudget: number) {}

  spool(): Spool {
    const spool = new Spool(this);
    this.spools.push(spool);
    return spool;
  }

  /** Called by a spool after it grew: over budget, the largest in-memory spools move to their files. */
  balance(): void {
    if (this.inMemory <= this.memoryBudget) return;
    for (const spool of [...this.spools].sort((a, b) => b.memoryChars - a.memoryChars)) {
      if (this.inMemory <= this.memoryBudget / 2) break;
      spool.spill();
    }
  }

  file(): string {
    this.folder ??= mkdtempSync(path.join(tmpdir(), 'querytrail-sync-'));
    return path.join(this.folder, `spool-${this.spools.length}-${Math.random().toString(36).slice(2)}.json`);
  }

  /** Closes and removes every file; the spools are empty afterwards. */
  dispose(): void {
    for (const spool of this.spools) spool.close();
    if (this.folder) rmSync(this.folder, { recursive: true, force: true });
    this.folder = undefined;
  }
}

/** The items of one JSON array, as text, in the order they were added. */
export class Spool {
  private parts: string[] = [];
  memoryChars = 0;
  private fd: number | undefined;
  private path: string | undefined;
  count = 0;

  constructor(private readonly set: SpoolSet) {}

  /** Adds one item (its JSON text). */
  add(json: string): void {
    const text = this.count === 0 ? json : `,${json}`;
    this.count++;
    this.parts.push(text);
    this.memoryChars += text.length;
    this.set.inMemory += text.length;
    if (this.parts.length >= 256 || text.length > 65_536) this.set.balance();
  }

  /** Adds each value, stringified (in one piece: the array's text without its brackets). */
  addAll(values: readonly unknown[]): void {
    if (values.length === 0) return;
    const text = JSON.stringify(values);
    this.add(text.slice(1, -1));
    this.count += values.length - 1;
  }

  /** Moves what is in memory to the spool's file. */
  spill(): void {
    if (this.memoryChars === 0) return;
    if (this.fd === undefined) {
      this.path = this.set.file();
      this.fd = openSync(this.path, 'w', 0o600);
    }
    writeSync(this.fd, this.parts.join(''));
    this.set.inMemory -= this.memoryChars;
    this.set.spilled += this.memoryChars;
    this.parts = [];
    this.memoryChars = 0;
  }

  /** Writes the items (without brackets) to `sink`: the file's part first, then memory's. */
  async copyTo(sink: JsonSink): Promise<void> {
    if (this.fd !== undefined && this.path) {
      closeSync(this.fd);
      this.fd = undefined;
      for await (const chunk of createReadStream(this.path, { highWaterMark: 1 << 20 })) await sink.write(chunk as Buffer);
    }
    if (this.parts.length) await sink.write(this.parts.join(''));
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    this.set.inMemory -= this.memoryChars;
    this.parts = [];
    this.memoryChars = 0;
  }
}
