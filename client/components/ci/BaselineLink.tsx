// "Compared with run 700 on main, received 2 hours ago": the run a CI run is judged against.
import { Link } from 'react-router-dom';
import { runPath } from '../../lib/paths';
import { RelativeTime } from '../RelativeTime';

export interface BaselineRun {
  id: string;
  runId: string;
  branch: string | null;
  createdAt: string;
}

export function BaselineLink({ baseline }: { baseline: BaselineRun }) {
  return (
    <>
      Compared with <Link to={runPath(baseline.id)}>run {baseline.runId}</Link>
      {baseline.branch ? (
        <>
          {' '}
          on <code>{baseline.branch}</code>
        </>
      ) : null}
      , received <RelativeTime value={baseline.createdAt} />
    </>
  );
}
