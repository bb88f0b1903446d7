// CI runs: storing one (its queries join the catalog of its repository's environment, and learn
// their production cost from the environment's latest analysis), and reading them for the /ci page.
import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { z } from 'zod';
import type { CiRunDetail, CiRunSummary, IngestRunInput, listRunsInput } from '../../shared/ci';
import type { VerdictStatus } from '../../shared/policy';
import { copyCostsToRuns } from '../analysis/run-costs.sql';
import { ingestRun, type IngestResult } from '../catalog/ingest';
import { ciRunQueries, ciRuns, environments } from '../db/schema';
import type { Db } from '../db/store';
import { notFound } from '../errors';
import { readVerdictStatuses } from '../verdict/read';
import { scheduleRunVerdict } from '../verdict/jobs';
import type { Services } from '../services-type';
import type { Page } from './paging';

/**
 * Stores one run (idempotent on repo and run id); a new tagged run's queries get their known costs,
 * and its verdict analysis starts in the background (the answer does not wait for it).
 */
export async function recordCiRun(services: Services, input: IngestRunInput): Promise<IngestResult> {
  const { db } = services.store;
  const result = await ingestRun(db, input);
  if (result.created && result.environmentId) {
    await db.execute(copyCostsToRuns({ runId: result.id }));
    await scheduleRunVerdict(services, result.id);
  }
  return result;
}

const summaryColumns = {
  id: ciRuns.id,
  repo: ciRuns.repo,
  runId: ciRuns.runId,
  branch: ciRuns.branch,
  commitSha: ciRuns.commitSha,
  pullRequest: ciRuns.pullRequest,
  startedAt: ciRuns.startedAt,
  createdAt: ciRuns.createdAt,
  queryCount: ciRuns.queryCount,
  newQueryCount: ciRuns.newQueryCount,
  environmentId: environments.id,
  environmentName: environments.name,
  environmentSlug: environments.slug,
};

interface SummaryRow {
  id: string;
  repo: string;
  runId: string;
  branch: string | null;
  commitSha: string | null;
  pullRequest: number | null;
  startedAt: Date | null;
  createdAt: Date;
  queryCount: number;
  newQueryCount: number;
  environmentId: string | null;
  environmentName: string | null;
  environmentSlug: string | null;
}

function toSummary(
  { environmentId, environmentName, environmentSlug, startedAt, createdAt, ...run }: SummaryRow,
  statuses: ReadonlyMap<string, VerdictStatus>,
): CiRunSummary {
  return {
    ...run,
    startedAt: startedAt?.toISOString() ?? null,
    createdAt: createdAt.toISOString(),
    environment: environmentId ? { id: environmentId, name: environmentName!, slug: environmentSlug! } : null,
    // a run deleted between the two reads has no verdict to wait for
    verdictStatus: statuses.get(run.id) ?? 'unavailable',
  };
}

/** `visible`: the environments whose runs the caller may see; null (admins) for every run, tagged or not. */
type RunFilters = Pick<z.infer<typeof listRunsInput>, 'environmentId' | 'repo' | 'pullRequest'> & { visible?: string[] | null };

function runFilters(input: RunFilters): SQL | undefined {
  const filters: SQL[] = [];
  if (input.visible) filters.push(input.visible.length ? inArray(ciRuns.environmentId, input.visible) : sql`false`);
  if (input.environmentId) filters.push(eq(ciRuns.environmentId, input.environmentId));
  if (input.repo?.trim()) filters.push(eq(sql`lower(${ciRuns.repo})`, input.repo.trim().toLowerCase()));
  if (input.pullRequest !== undefined) filters.push(eq(ciRuns.pullRequest, input.pullRequest));
  return filters.length ? and(...filters) : undefined;
}

/** How many runs match, whatever the page. */
export async function countRuns(db: Db, input: RunFilters): Promise<number> {
  const [count] = await db
    .select({ total: sql<number>`count(*)::int` })
    .from(ciRuns)
    .where(runFilters(input));
  return count?.total ?? 0;
}

/** Newest first, with the environment each run was tagged with (null when untagged). */
export async function listRuns(db: Db, input: z.infer<typeof listRunsInput> & { visible?: string[] | null }): Promise<Page<CiRunSummary>> {
  const [rows, total] = await Promise.all([
    db
      .select(summaryColumns)
      .from(ciRuns)
      .leftJoin(environments, eq(environments.id, ciRuns.environmentId))
      .where(runFilters(input))
      .orderBy(desc(ciRuns.createdAt), desc(ciRuns.id))
      .limit(input.limit)
      .offset(input.offset),
    countRuns(db, input),
  ]);
  const statuses = await readVerdictStatuses(
    db,
    rows.map((row) => row.id),
  );
  return { rows: rows.map((row) => toSummary(row, statuses)), total };
}

/** One run with its rejections and its queries, the most called first. */
export async function readRun(db: Db, id: string): Promise<CiRunDetail> {
  const [run] = await db
    .select({ ...summaryColumns, rejected: ciRuns.rejected })
    .from(ciRuns)
    .leftJoin(environments, eq(environments.id, ciRuns.environmentId))
    .where(eq(ciRuns.id, id));
  if (!run) throw notFound(`CI run ${id}`);
  const queries = await db
    .select({
      hash: ciRunQueries.hash,
      query: ciRunQueries.query,
      formattedQuery: ciRunQueries.formattedQuery,
      calls: ciRunQueries.calls,
      meanTimeMs: ciRunQueries.meanTimeMs,
    })
    .from(ciRunQueries)
    .where(eq(ciRunQueries.runId, run.id))
    .orderBy(sql`${ciRunQueries.calls} DESC NULLS LAST`, asc(ciRunQueries.hash));
  const statuses = await readVerdictStatuses(db, [run.id]);
  const { rejected, ...summary } = run;
  return { ...toSummary(summary, statuses), rejected, queries };
}
