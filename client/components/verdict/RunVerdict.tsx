// A CI run's verdict, loaded and kept current: asked again every 2 s while the analysis runs.
import { trpc } from '../../trpc';
import { ErrorState, Loading } from '../States';
import { Findings } from './Findings';
import { VerdictBanner } from './VerdictBanner';

/** How often a pending verdict is asked how far it got. */
const POLL_INTERVAL_MS = 2000;

export function RunVerdict({ runId, envId }: { runId: string; envId: string | null }) {
  const verdict = trpc.ci.verdict.useQuery({ id: runId }, { refetchInterval: (query) => (query.state.data?.status === 'pending' ? POLL_INTERVAL_MS : false) });
  if (verdict.isPending) return <Loading label="Loading the verdict…" />;
  if (verdict.isError) return <ErrorState title="The verdict could not be loaded" error={verdict.error} onRetry={() => verdict.refetch()} />;
  const data = verdict.data;
  const judged = data.status === 'pass' || data.status === 'warn' || data.status === 'fail';
  return (
    <>
      <VerdictBanner verdict={data} envId={envId} />
      {judged ? <Findings verdict={data} envId={envId} /> : null}
    </>
  );
}
