// Extend (Schlosser, Halfpap, Kossmann, Boissier, "Efficient Scalable Multi-Attribute Index
// Selection Using Recursive Strategies", ICDE 2019), the baseline bench:advisor measures the
// advisor's workload choice against. From no index, each step either adds a single-attribute index
// or extends one chosen index by one attribute (appended), whichever lowers the workload's what-if
// cost most per byte it adds; until nothing that fits in the budget lowers it. The attributes are
// those a query uses on a table; an index is extended only by an attribute a query uses together
// with all of its own. Scored with the advisor's what-if cost (whatif-cost.ts), on its shadow.
import type { IndexCandidate, LiveCandidate } from '../../advisor/index.js';
import { candidateKey } from '../../advisor/candidates.js';

/** Widest index Extend builds. */
export const EXTEND_MAX_WIDTH = 3;

const btree = (schema: string, table: string, keys: string[]): IndexCandidate => ({ schema, table, am: 'btree', keys, include: [], predicate: null });

/** Each query's attributes, per table (schema.table): the columns of its own B-tree candidates. */
export function attributesOf(candidatesOf: IndexCandidate[][]): Map<string, { schema: string; table: string; columns: Set<string> }>[] {
  return candidatesOf.map((list) => {
    const byTable = new Map<string, { schema: string; table: string; columns: Set<string> }>();
    for (const c of list) {
      if (c.am !== 'btree') continue;
      const key = `${c.schema}.${c.table}`;
      const entry = byTable.get(key) ?? { schema: c.schema, table: c.table, columns: new Set<string>() };
      for (const k of c.keys) entry.columns.add(k);
      byTable.set(key, entry);
    }
    return byTable;
  });
}

/** Every index Extend may reach: per query and table, the orderings of its attributes up to EXTEND_MAX_WIDTH. */
export function extendCandidates(candidatesOf: IndexCandidate[][]): IndexCandidate[] {
  const out = new Map<string, IndexCandidate>();
  const grow = (schema: string, table: string, keys: string[], rest: string[]) => {
    const c = btree(schema, table, keys);
    out.set(candidateKey(c), c);
    if (keys.length === EXTEND_MAX_WIDTH) return;
    for (const a of rest)
      grow(
        schema,
        table,
        [...keys, a],
        rest.filter((r) => r !== a),
      );
  };
  for (const byTable of attributesOf(candidatesOf)) {
    for (const { schema, table, columns } of byTable.values())
      for (const a of columns)
        grow(
          schema,
          table,
          [a],
          [...columns].filter((c) => c !== a),
        );
  }
  return [...out.values()];
}

export interface ExtendInput {
  candidatesOf: IndexCandidate[][];
  /** Built candidates by candidateKey: what Extend may choose, with their sizes. */
  live: Map<string, LiveCandidate>;
  bytesOf: (c: LiveCandidate) => number;
  /** The workload's what-if cost with exactly these indexes. */
  workloadCost: (indexes: LiveCandidate[]) => Promise<number>;
  maxBytes: number;
}

/** Extend's choice within `maxBytes`, in the order it took its steps. */
export async function extend(input: ExtendInput): Promise<LiveCandidate[]> {
  const attributes = attributesOf(input.candidatesOf);
  const singles = new Map<string, LiveCandidate>();
  for (const byTable of attributes) {
    for (const { schema, table, columns } of byTable.values()) {
      for (const a of columns) {
        const c = input.live.get(candidateKey(btree(schema, table, [a])));
        if (c) singles.set(candidateKey(c), c);
      }
    }
  }
  // The attributes a query uses together with all of an index's: what it may be extended by.
  const extensionsOf = (index: LiveCandidate): string[] => {
    const out = new Set<string>();
    for (const byTable of attributes) {
      const cols = byTable.get(`${index.schema}.${index.table}`)?.columns;
      if (cols && index.keys.every((k) => cols.has(k))) for (const a of cols) if (!index.keys.includes(a)) out.add(a);
    }
    return [...out];
  };

  let chosen: LiveCandidate[] = [];
  let bytes = 0;
  let cost = await input.workloadCost(chosen);
  for (;;) {
    const held = new Set(chosen.map(candidateKey));
    let best: { config: LiveCandidate[]; cost: number; added: number; ratio: number } | undefined;
    const consider = async (config: LiveCandidate[], added: number) => {
      if (bytes + added > input.maxBytes) return;
      const c = await input.workloadCost(config);
      const ratio = (cost - c) / Math.max(added, 1);
      if (c < cost && (!best || ratio > best.ratio)) best = { config, cost: c, added, ratio };
    };
    for (const [key, s] of singles) if (!held.has(key)) await consider([...chosen, s], input.bytesOf(s));
    for (const index of chosen) {
      if (index.keys.length >= EXTEND_MAX_WIDTH) continue;
      for (const a of extensionsOf(index)) {
        const wider = input.live.get(candidateKey(btree(index.schema, index.table, [...index.keys, a])));
        if (!wider || held.has(candidateKey(wider))) continue;
        await consider(
          chosen.map((c) => (c === index ? wider : c)),
          input.bytesOf(wider) - input.bytesOf(index),
        );
      }
    }
    if (!best) return chosen;
    chosen = best.config;
    bytes += best.added;
    cost = best.cost;
  }
}
