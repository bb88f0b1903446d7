// What a control the caller's role may not use says instead: who may use it, and what the caller is.
import type { EnvRole } from '../../shared/auth';

const WHO: Record<EnvRole, string> = { viewer: 'Viewers', editor: 'Editors', owner: 'Owners' };
const WITH_ARTICLE: Record<EnvRole, string> = { viewer: 'a viewer', editor: 'an editor', owner: 'an owner' };

/** "Owners can delete this environment (you are an editor)." */
export function roleReason(needed: EnvRole, action: string, role: EnvRole | undefined): string {
  return `${WHO[needed]} can ${action}${role ? ` (you are ${WITH_ARTICLE[role]})` : ''}.`;
}
