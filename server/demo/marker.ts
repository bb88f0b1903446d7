// The demo's marker, DATA_DIR/demo.json (0600): what the demo made (its environment, runs, port)
// and whether it finished. Running the demo again reads it instead of making a second one, and
// the server starts the demo's PostgreSQL again from it. The reader's password is kept sealed
// with the store's key, like every connection string.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { demoStepSchema } from './status';

const markerSchema = z.object({
  version: z.literal(1),
  state: z.enum(['creating', 'ready']),
  port: z.number().int(),
  readerPasswordSealed: z.string(),
  environmentId: z.string().nullable(),
  baselineRunId: z.string().nullable(),
  pullRequestRunId: z.string().nullable(),
  startedAt: z.string(),
  durationMs: z.number().nullable(),
  steps: z.array(demoStepSchema),
});
export type DemoMarker = z.infer<typeof markerSchema>;

const markerFile = (dataDir: string) => path.join(dataDir, 'demo.json');

export function readMarker(dataDir: string): DemoMarker | undefined {
  let text: string;
  try {
    text = readFileSync(markerFile(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = markerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Written whole to a temp file and renamed, so a crash never leaves half a marker. */
export function writeMarker(dataDir: string, marker: DemoMarker): void {
  const file = markerFile(dataDir);
  writeFileSync(`${file}.tmp`, JSON.stringify(marker, null, 2), { mode: 0o600 });
  renameSync(`${file}.tmp`, file);
}

export function removeMarker(dataDir: string): void {
  rmSync(markerFile(dataDir), { force: true });
}
