import type { EnvRole } from '../../shared/auth';
import { roleReason } from '../lib/roles';

/**
 * Said in place of (or beside) a control the caller's role on the environment may not use: who may
 * use it. A disabled control points at it with aria-describedby, as a tooltip alone is not read.
 */
export function RoleNote({ id, needed, role, action }: { id?: string; needed: EnvRole; role: EnvRole | undefined; action: string }) {
  return (
    <p id={id} className="role-note">
      {roleReason(needed, action, role)}
    </p>
  );
}
