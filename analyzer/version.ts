// The analyzer's own version, reported in every sync (meta.version) so a result says which analyzer
// read it: the one in package.json.
import { readFileSync } from 'node:fs';

function readVersion(): string {
  const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown };
  return typeof packageJson.version === 'string' ? packageJson.version : '0.0.0';
}

export const ANALYZER_VERSION = readVersion();
