// The relations (and set-returning functions) a statement's text names, from its parse tree: what
// tells a system-catalog query from the user's (queries.ts) and a statement's schemas (statement-schemas.ts).

export interface Relation {
  schema: string | undefined;
  name: string;
}

/** The relations (and set-returning functions) a statement reads, from its parse tree. */
export function relationsOf(tree: unknown): Relation[] {
  const relations: Relation[] = [];
  const cteNames = new Set<string>();
  const walk = (node: unknown, inRangeFunction: boolean): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item, inRangeFunction);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
      if (key === 'RangeVar') {
        const rangeVar = value as { schemaname?: string; relname?: string };
        if (rangeVar.relname) relations.push({ schema: rangeVar.schemaname, name: rangeVar.relname });
      } else if (key === 'CommonTableExpr') {
        const name = (value as { ctename?: string }).ctename;
        if (name) cteNames.add(name);
      } else if (key === 'FuncCall' && inRangeFunction) {
        const parts = ((value as { funcname?: { String?: { sval?: string } }[] }).funcname ?? []).map((p) => p.String?.sval ?? '');
        const name = parts.at(-1);
        if (name) relations.push({ schema: parts.length > 1 ? parts[0] : undefined, name });
      }
      walk(value, inRangeFunction || key === 'RangeFunction');
    }
  };
  walk(tree, false);
  return relations.filter((r) => r.schema !== undefined || !cteNames.has(r.name));
}
