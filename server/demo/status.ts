// What the demo reports while it is made and once it is there: its steps, in order, each with
// its state and a line of detail; the environment and the two CI runs it made, to link to.
import { z } from 'zod';

export const DEMO_STEPS = [
  { key: 'database', label: 'Start PostgreSQL 18' },
  { key: 'data', label: 'Load the Pagila schema and data' },
  { key: 'workload', label: "Run the application's workload" },
  { key: 'environment', label: 'Create the environment "Pagila demo"' },
  { key: 'production', label: "Sync production's pg_stat_statements into the catalog" },
  { key: 'manual', label: 'Add a query by hand' },
  { key: 'ci', label: 'Post two CI runs: main, then a pull request' },
  { key: 'analysis', label: 'Analyze the catalog with production statistics' },
  { key: 'verdict', label: "Judge the pull request's run" },
] as const;

export type DemoStepKey = (typeof DEMO_STEPS)[number]['key'];

export const demoStepSchema = z.object({
  key: z.enum(DEMO_STEPS.map((s) => s.key) as [DemoStepKey, ...DemoStepKey[]]),
  label: z.string(),
  status: z.enum(['pending', 'running', 'done', 'failed']),
  detail: z.string().nullable(),
  durationMs: z.number().nullable(),
});
export type DemoStep = z.infer<typeof demoStepSchema>;

export const demoStatusSchema = z.object({
  state: z
    .enum(['absent', 'starting', 'ready', 'failed', 'removing'])
    .meta({ description: 'absent: no demo; starting: being made (see steps); ready: made; failed: see error (start again to retry)' }),
  database: z.enum(['running', 'starting', 'stopped']).meta({ description: "The demo's PostgreSQL server" }),
  steps: z.array(demoStepSchema),
  environmentId: z.string().nullable(),
  baselineRunId: z.string().nullable(),
  pullRequestRunId: z.string().nullable(),
  startedAt: z.string().nullable(),
  durationMs: z.number().nullable().meta({ description: 'From the start to the verdict, once ready' }),
  error: z.string().nullable(),
});
export type DemoStatus = z.infer<typeof demoStatusSchema>;

export const freshSteps = (): DemoStep[] => DEMO_STEPS.map(({ key, label }) => ({ key, label, status: 'pending', detail: null, durationMs: null }));
