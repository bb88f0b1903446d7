// ci.verdict.failed: a verdict is judged on read (verdict/read.ts), so it is read once when the
// run's analysis is stored, and a failing one notifies, once per run (the run id is the event key).
import { eq } from 'drizzle-orm';
import { ciRuns } from '../db/schema';
import type { Services } from '../services-type';
import { readVerdict } from '../verdict/read';
import { emitEvent } from './events';

export async function emitVerdictFailed(services: Services, runId: string): Promise<void> {
  try {
    const { db } = services.store;
    const verdict = await readVerdict(db, runId);
    if (verdict.status !== 'fail') return;
    const [run] = await db.select().from(ciRuns).where(eq(ciRuns.id, runId));
    if (!run?.environmentId) return;
    const failing = verdict.findings.filter((f) => f.severity === 'fail' && !f.acknowledged);
    const { queries, regressions, needIndex, lostIndex } = verdict.summary;
    await emitEvent(
      services,
      run.environmentId,
      'ci.verdict.failed',
      {
        runId: run.id,
        ciRunId: run.runId,
        repo: run.repo,
        branch: run.branch,
        commitSha: run.commitSha,
        pullRequest: run.pullRequest,
        summary: `${failing.length} failing finding${failing.length === 1 ? '' : 's'} in ${queries} quer${queries === 1 ? 'y' : 'ies'}`,
        counts: { queries, regressions, needIndex, lostIndex },
        findings: failing.slice(0, 20).map((f) => ({ kind: f.kind, hash: f.hash, cost: f.cost, baselineCost: f.baselineCost, changePct: f.changePct })),
      },
      { key: run.id },
    );
  } catch (error) {
    console.error(`[webhooks] the verdict of run ${runId} could not be checked for notification: ${error instanceof Error ? error.message : String(error)}`);
  }
}
