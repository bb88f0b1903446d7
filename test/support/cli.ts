// The `querytrail` command as users run it, in a child process: bin/querytrail.mjs (`npx
// querytrail`, which runs the committed bundle), or the bundle itself as the GitHub Action does.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const BIN = path.join(ROOT, 'bin', 'querytrail.mjs');
/** What action.yml runs (`runs: main`). */
export const BUNDLE = path.join(ROOT, 'dist', 'querytrail.mjs');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command with only the environment given (no GITHUB_* of the machine running the tests). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return runNode(BIN, args, env, cwd);
}

/** Runs a script with `node`, as the GitHub runner runs an action's main file; in `cwd` as a CI job's project directory when given. */
export function runNode(script: string, args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
