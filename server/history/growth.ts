// Why a production query slowed down, when production itself changed: the tables it reads grew
// between the two windows compared. Growth is production's, never a pull request's (a verdict
// plans the run and its baseline on the same snapshot), so it is told here, on history's regressed
// queries. The tables are the ones the query's text names (its parse tree), matched by name to the
// sizes kept at each history reading (the planner's estimates); a table named without its schema
// matches that name in public first, else in the one schema that has it.
import { parseSync } from 'libpg-query';
import { relationsOf } from '../../analyzer/statement-relations';
import type { HistoryCause } from '../../shared/history';

/** schema.name -> [rows, bytes] at one reading. */
export type TableFacts = Readonly<Record<string, readonly [number, number]>>;

/** Growth below this factor is noise (estimates move by a few percent with every ANALYZE). */
export const MIN_GROWTH_FACTOR = 1.1;

const count = (n: number) => Math.round(n).toLocaleString('en-US');
function size(bytes: number): string {
  const units = ['bytes', 'kB', 'MB', 'GB', 'TB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}
const round2 = (n: number) => Math.round(n * 100) / 100;

/** The tables (schema.name) a query's text names that the facts know; none when it does not parse. */
function tablesOf(query: string, known: TableFacts): string[] {
  let tree: unknown;
  try {
    tree = parseSync(query);
  } catch {
    return [];
  }
  const tables = new Set<string>();
  for (const { schema, name } of relationsOf(tree)) {
    if (schema) {
      if (`${schema}.${name}` in known) tables.add(`${schema}.${name}`);
      continue;
    }
    const candidates = Object.keys(known).filter((key) => key.slice(key.indexOf('.') + 1) === name);
    const table = candidates.includes(`public.${name}`) ? `public.${name}` : candidates.length === 1 ? candidates[0] : undefined;
    if (table) tables.add(table);
  }
  return [...tables];
}

/**
 * The data_growth causes of a regressed query: each table it reads that grew by MIN_GROWTH_FACTOR
 * or more from `before` (the previous window's last reading) to `after` (this window's), largest
 * growth first. A table empty before has no factor and is not named. Needs the parser loaded.
 */
export function dataGrowthCauses(query: string | null, before: TableFacts | null, after: TableFacts | null): HistoryCause[] {
  if (query === null || before === null || after === null) return [];
  const causes: HistoryCause[] = [];
  for (const table of tablesOf(query, after)) {
    const then = before[table];
    const now = after[table]!;
    if (!then) continue;
    // rows when the planner counted any, else the pages it reads
    const [fromValue, toValue] = then[0] > 0 ? [then[0], now[0]] : [then[1], now[1]];
    if (fromValue <= 0 || toValue / fromValue < MIN_GROWTH_FACTOR) continue;
    const factor = round2(toValue / fromValue);
    causes.push({
      kind: 'data_growth',
      table,
      factor,
      detail: `${table} grew ${factor}x between the two windows: ${count(then[0])} -> ${count(now[0])} rows, ${size(then[1])} -> ${size(now[1])} (the planner's estimates)`,
    });
  }
  return causes.sort((a, b) => b.factor - a.factor || (a.table < b.table ? -1 : 1));
}
