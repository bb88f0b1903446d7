// get_verdict: a CI run's verdict, named by the run's id or by its repository and pull request
// (that pull request's latest run). Its findings come a page at a time.
import { z } from 'zod';
import { ciRunSummary } from '../../../shared/ci';
import { policySchema, verdictSchema } from '../../../shared/policy';
import { idSchema, repoSchema } from '../../../shared/validation';
import { badRequest, notFound } from '../../errors';
import { pageSizeInput, READ_ONLY, type Caller, type Registration } from '../caller';
import { cursorInput, offsetOf, pageFields, pageOf } from '../paging';
import { answer } from '../results';

const PAGE = 20;
const MAX_PAGE = 50;

// The verdict without its findings (paged beside it). Its policy as read back: the lists are
// already de-duplicated and sorted, so they are plain lists (a JSON Schema has no transforms).
const verdictOutput = verdictSchema.omit({ findings: true }).extend({
  policy: policySchema.extend({ ignoredHashes: z.array(z.string()), ignoredCallSites: z.array(z.string()) }),
});

export const verdictTools: Registration = (server, caller) => {
  server.registerTool(
    'get_verdict',
    {
      title: "A CI run's verdict",
      description:
        "The verdict of a CI run (pass, warn, fail, pending or unavailable) by the environment's policy, with its findings, " +
        `${PAGE} per page. Name the run by \`runId\` (run_...), or by \`repo\` and \`pullRequest\` for that pull request's latest run.`,
      inputSchema: {
        runId: idSchema.optional().describe('The CI run id (run_...)'),
        repo: repoSchema.optional().describe('The repository, as linked to an environment'),
        pullRequest: z.number().int().positive().optional().describe('The pull request (merge request) number'),
        limit: pageSizeInput(MAX_PAGE, PAGE),
        cursor: cursorInput,
      },
      outputSchema: { run: ciRunSummary, verdict: verdictOutput, findings: verdictSchema.shape.findings, ...pageFields },
      annotations: READ_ONLY,
    },
    (input) =>
      answer('get_verdict', async () => {
        const offset = offsetOf(input.cursor);
        const run = await runOf(caller, input);
        const { findings, ...verdict } = await caller.ci.verdict({ id: run.id });
        const page = pageOf(findings, offset, input.limit ?? PAGE);
        return { run, verdict, findings: page.items, total: page.total, nextCursor: page.nextCursor };
      }),
  );
};

async function runOf(caller: Caller, input: { runId?: string; repo?: string; pullRequest?: number }) {
  if (input.runId !== undefined) {
    if (input.repo !== undefined || input.pullRequest !== undefined) throw badRequest('Name the run by runId, or by repo and pullRequest, not both');
    const { rejected: _rejected, queries: _queries, ...run } = await caller.ci.get({ id: input.runId });
    return run;
  }
  if (input.repo === undefined || input.pullRequest === undefined) throw badRequest('Name the run by runId, or by repo and pullRequest');
  const [latest] = await caller.ci.list({ repo: input.repo, pullRequest: input.pullRequest, limit: 1, offset: 0 });
  if (!latest) throw notFound(`A CI run of ${input.repo} pull request ${input.pullRequest}`);
  return latest;
}
