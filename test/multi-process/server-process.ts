// `npm run serve` (server/main.ts) as a child process, as an operator starts it: its own DATA_DIR,
// free ports, the environment given. Resolves once it listens, or with its exit code and output
// when it refuses to start.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { onTestFinished } from 'vitest';

const root = path.resolve(import.meta.dirname, '..', '..');

export interface ServerProcess {
  url: string;
  pid: number;
  /** SIGTERM, as a service manager stops it; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies without cleaning up. */
  kill(): Promise<number | null>;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
}

export type Started = { listening: true; server: ServerProcess } | { listening: false; code: number | null; output: string };

export function startServerProcess(env: Record<string, string>): Promise<Started> {
  // node itself with tsx's loader (not the tsx command, which runs the server as its own child), so
  // the pid is the server's and a signal reaches it
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: root,
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ANALYZER_PORT: '0', API_TOKEN: '', SECRET_KEY: '', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code, signal) => {
      output += `[exited: ${signal ?? `code ${code}`}]\n`;
      resolve(code);
    }),
  );
  onTestFinished(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return new Promise<Started>((resolve) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /querytrail on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match) {
        resolve({
          listening: true,
          server: {
            url: match[1]!,
            pid: child.pid!,
            stop: () => {
              child.kill('SIGTERM');
              return exited;
            },
            kill: () => {
              child.kill('SIGKILL');
              return exited;
            },
            output: () => output,
          },
        });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    void exited.then((code) => resolve({ listening: false, code, output }));
  });
}

/** The server of a start that must have succeeded. */
export async function listening(start: Promise<Started>): Promise<ServerProcess> {
  const started = await start;
  if (!started.listening) throw new Error(`server/main.ts exited with ${started.code}: ${started.output}`);
  return started.server;
}
