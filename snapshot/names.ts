// Names as the queries write them, keyed and resolved the way the application's search_path
// resolves them: shared by the scoped read of production (scope.ts) and the advisor's cut of a
// snapshot (advisor/scope.ts).
import type { ObjectName } from './types.js';

/** A name as the scope records it: `["name"]` alone, `["schema","name"]` qualified. */
export const nameKey = (n: ObjectName): string => JSON.stringify(n.schema === undefined ? [n.name] : [n.schema, n.name]);

/** The schemas of a search_path setting, in order, without `$user` (the shadow's planner role has no schema of its name). */
export function searchPathSchemas(searchPath: string): string[] {
  const out: string[] = [];
  for (const part of searchPath.split(',')) {
    const s = part.trim();
    const name = s.startsWith('"') && s.endsWith('"') && s.length >= 2 ? s.slice(1, -1).replace(/""/g, '"') : s.toLowerCase();
    if (name && name !== '$user') out.push(name);
  }
  return out;
}
