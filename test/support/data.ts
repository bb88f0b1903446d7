// The real-world schemas of ../shared/data (beside the checkout: read-only material, not ours to copy).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** SHARED_DATA_DIR, else ../shared/data beside the checkout (where CI puts it), else /work/shared/data. */
export const SHARED_DATA_DIR =
  process.env.SHARED_DATA_DIR ??
  [path.resolve(repoRoot, '..', 'shared', 'data'), '/work/shared/data'].find((dir) => existsSync(dir)) ??
  path.resolve(repoRoot, '..', 'shared', 'data');
