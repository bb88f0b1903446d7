// npm run bench:advisor — proof of the advisor against a real PostgreSQL 18 holding
// Pagila filled with ~15 million generated, skewed rows:
//   1. plan fidelity: the shadow's plan shape and cost vs the real EXPLAIN, for 68 queries,
//      with the workload indexes present and again with them dropped;
//   2. recommendation quality: with 10 workload indexes dropped, how many the advisor recovers
//      (and a single-column-only advisor), and whether each recommendation, created for real,
//      lowers the real cost by what it claimed (within 10%);
//   3. the whole workload: the indexes chosen for it (and under a budget) against those chosen one
//      query at a time, each set created for real and the workload's real cost (x calls) measured;
//   4. index selection: the workload's choice against Extend at budgets from 1% to 150% of the data,
//      on Pagila's workload and on an analytic star schema of ~1 GB (ANALYTIC_SCALE, default 1),
//      with each workload's saving curve (bench/advisor/selection.ts).
// Prints every figure and writes the tables into docs/benchmarks.md between the result markers.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startPostgres, type PostgresServer } from '../test/support/postgres.js';
import { analyzeQueries, planShape, rankIndexes, type AnalysisResult, type PlanNode } from '../advisor/index.js';
import { isCovered } from '../advisor/candidates.js';
import { WORKLOAD, WORKLOAD_INDEXES } from './advisor-data.js';
import { ANALYTIC_DB, dataBytes, loadAnalytic } from './advisor/analytic/load.js';
import { ANALYTIC_WORKLOAD } from './advisor/analytic/queries.js';
import { loadPagila } from './advisor/pagila.js';
import { createReport } from './advisor/report.js';
import { compareSelection } from './advisor/selection.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const RESULTS_PAGE = path.resolve(here, '../docs/benchmarks.md');

const report = createReport();
const { print, table, lines: out } = report;
const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : n.toFixed(2));
const pct = (n: number) => `${(n * 100).toFixed(1)}%`;
const seconds = (t: number) => `${((Date.now() - t) / 1000).toFixed(1)} s`;

async function realPlan(db: PostgresServer, sql: string): Promise<PlanNode> {
  const r = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (GENERIC_PLAN, FORMAT JSON) ${sql}`, [], 'pagila');
  return r.rows[0]!['QUERY PLAN'][0]!.Plan;
}

interface Fidelity {
  same: number;
  within10: number;
  both: number;
  total: number;
  rows: (string | number)[][];
}

async function fidelity(db: PostgresServer, result: AnalysisResult): Promise<Fidelity> {
  const f: Fidelity = { same: 0, within10: 0, both: 0, total: 0, rows: [] };
  for (const [i, [label, sql]] of WORKLOAD.entries()) {
    const real = await realPlan(db, sql);
    const shadow = result.queries[i]!;
    const same = shadow.planShape === planShape(real);
    const diff = shadow.cost === null ? Infinity : Math.abs(shadow.cost - real['Total Cost']) / real['Total Cost'];
    f.total++;
    if (same) f.same++;
    if (diff <= 0.1) f.within10++;
    if (same && diff <= 0.1) f.both++;
    f.rows.push([
      i + 1,
      label,
      same ? 'same' : 'DIFFERENT',
      fmt(real['Total Cost']),
      shadow.cost === null ? `error: ${shadow.error}` : fmt(shadow.cost),
      pct(diff),
    ]);
    if (!same) f.rows.push(['', `real: ${planShape(real)}<br>shadow: ${shadow.planShape}`, '', '', '', '']);
  }
  return f;
}

/** Every index recommended for some query, once: the one-query-at-a-time method. */
const perQueryIndexes = (result: AnalysisResult) => [
  ...new Map(result.queries.flatMap((q) => q.recommendations.map((r) => [r.createIndex, r] as const))).values(),
];

/** A recommendation recovers a dropped index when it serves every scan the dropped one did. */
function recovers(w: (typeof WORKLOAD_INDEXES)[number], indexes: AnalysisResult['indexes'] | ReturnType<typeof perQueryIndexes>): string | undefined {
  const normalize = (p: string | null) => (p === null ? null : p.replace(/[()\s]/g, '').toLowerCase());
  for (const r of indexes) {
    if (r.table !== `public.${w.table}`) continue;
    const asExisting = { am: r.method, keys: r.columns, include: r.include, predicate: normalize(r.predicate) };
    const wanted = { schema: 'public', table: w.table, am: w.am, keys: w.keys, include: [], predicate: normalize(w.predicate) };
    if (isCovered(wanted, asExisting)) return r.createIndex;
  }
  return undefined;
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const db = await startPostgres({
    statStatements: false,
    settings: { max_wal_size: '8GB', maintenance_work_mem: '512MB', checkpoint_timeout: '30min', shared_buffers: '512MB' },
  });
  try {
    let t = Date.now();
    const url = await loadPagila(db, { workloadIndexes: true });
    const sizes = await db.query<{ rows: string; size: string }>(
      `SELECT sum(reltuples)::bigint AS rows, pg_size_pretty(pg_database_size(current_database())) AS size FROM pg_class WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace`,
      [],
      'pagila',
    );
    print(`# Advisor benchmark`);
    print();
    print(
      `Real database: PostgreSQL 18, Pagila schema, ${Number(sizes.rows[0]!.rows).toLocaleString('en')} generated rows (${sizes.rows[0]!.size}), loaded and analyzed in ${seconds(t)}.`,
    );
    print();

    const queries = WORKLOAD.map(([label, query, calls], i) => ({ hash: `q${i + 1} ${label}`, query, calls }));

    // 1. Fidelity with every index present.
    t = Date.now();
    const withIndexes = await analyzeQueries({ connectionString: url, queries });
    const tWith = seconds(t);
    const f1 = await fidelity(db, withIndexes);

    // 2. Drop the workload's indexes, plan again and ask for recommendations.
    for (const w of WORKLOAD_INDEXES) await db.query(`DROP INDEX ${w.name}`, [], 'pagila');
    t = Date.now();
    const full = await analyzeQueries({ connectionString: url, queries });
    const tFull = seconds(t);
    const single = await analyzeQueries({ connectionString: url, queries, options: { candidates: { maxColumns: 1, partial: false, include: false } } });
    const f2 = await fidelity(db, full);

    print(`## Plan fidelity (${WORKLOAD.length} queries, generic plans)`);
    print();
    table(
      ['state', 'same plan shape', 'cost within 10%', 'both', 'analysis time'],
      [
        [
          'workload indexes present',
          `${f1.same}/${f1.total} (${pct(f1.same / f1.total)})`,
          `${f1.within10}/${f1.total} (${pct(f1.within10 / f1.total)})`,
          `${f1.both}/${f1.total}`,
          tWith,
        ],
        [
          'workload indexes dropped',
          `${f2.same}/${f2.total} (${pct(f2.same / f2.total)})`,
          `${f2.within10}/${f2.total} (${pct(f2.within10 / f2.total)})`,
          `${f2.both}/${f2.total}`,
          tFull,
        ],
      ],
    );
    print(`### Per query, workload indexes present`);
    print();
    table(['#', 'query', 'shape', 'real cost', 'shadow cost', 'cost diff'], f1.rows);
    print(`### Per query, workload indexes dropped`);
    print();
    table(['#', 'query', 'shape', 'real cost', 'shadow cost', 'cost diff'], f2.rows);

    // 3. Recovery of the dropped indexes.
    const recoveryRows = WORKLOAD_INDEXES.map((w) => {
      const a = recovers(w, perQueryIndexes(full));
      const b = recovers(w, perQueryIndexes(single));
      const c = recovers(w, full.indexes);
      return [
        w.sql.replace(/^CREATE INDEX \w+ ON /, ''),
        w.kind,
        a ? `yes: ${a.replace('CREATE INDEX ON public.', '')}` : 'no',
        c ? 'yes' : 'no',
        b ? 'yes' : 'no',
      ];
    });
    const recovered = recoveryRows.filter((r) => r[2] !== 'no').length;
    const inWorkload = recoveryRows.filter((r) => r[3] === 'yes').length;
    const recoveredSingle = recoveryRows.filter((r) => r[4] === 'yes').length;
    print(`## Recommendation quality: 10 workload indexes dropped`);
    print();
    table(['dropped index', 'kind', 'advisor recovers it (per query)', "also in the workload's choice", 'single-column advisor'], recoveryRows);
    print(
      `Recovered: **${recovered}/10** (single-column-only advisor: **${recoveredSingle}/10**); the workload's choice keeps ${inWorkload}/10 as such and serves the others' queries with an index it shares with more queries (next sections).`,
    );
    print();

    // 4. Each recommendation created for real: does the real cost drop by what was claimed?
    t = Date.now();
    const verifyRows: (string | number)[][] = [];
    let held = 0;
    let checked = 0;
    const sizeRows: (string | number)[][] = [];
    const sized = new Set<string>();
    for (const [i, q] of full.queries.entries()) {
      if (q.recommendations.length === 0) continue;
      const created: string[] = [];
      const realBase = (await realPlan(db, WORKLOAD[i]![1]))['Total Cost'];
      let realBefore = realBase;
      for (const [k, rec] of q.recommendations.entries()) {
        const name = `verify_${i}_${k}`;
        await db.query(rec.createIndex.replace('CREATE INDEX ON', `CREATE INDEX ${name} ON`), [], 'pagila');
        created.push(name);
        // No ANALYZE: a plain or partial index on columns adds no statistics, and a new sample
        // would move the table's histograms and null fractions (query 5 lost 12% of its base cost
        // to that once) so the saving measured would no longer be the index's alone.
        const realAfter = (await realPlan(db, WORKLOAD[i]![1]))['Total Cost'];
        const claimed = rec.costBefore - rec.costAfter;
        const real = realBefore - realAfter;
        const ok = real >= claimed * 0.9;
        checked++;
        if (ok) held++;
        verifyRows.push([
          i + 1,
          rec.createIndex.replace('CREATE INDEX ON public.', ''),
          `${fmt(rec.costBefore)} → ${fmt(rec.costAfter)}`,
          `${fmt(realBefore)} → ${fmt(realAfter)}`,
          `${fmt(claimed)} / ${fmt(real)}`,
          ok ? 'yes' : 'NO',
        ]);
        if (!sized.has(rec.createIndex)) {
          sized.add(rec.createIndex);
          const pages = await db.query<{ pages: string }>(
            // pg_partition_tree is empty for an index outside a partition tree.
            `SELECT (coalesce((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree($1::regclass) WHERE isleaf), pg_relation_size($1::regclass)) / 8192)::bigint AS pages`,
            [name],
            'pagila',
          );
          sizeRows.push([
            rec.createIndex.replace('CREATE INDEX ON public.', ''),
            rec.estimatedPages,
            pages.rows[0]!.pages,
            pct(rec.estimatedPages / Number(pages.rows[0]!.pages) - 1),
          ]);
        }
        realBefore = realAfter;
      }
      for (const name of created.reverse()) await db.query(`DROP INDEX ${name}`, [], 'pagila');
    }
    print(`## Claimed vs real saving (each recommendation created for real, ${seconds(t)})`);
    print();
    table(['#', 'recommendation', 'claimed cost', 'real cost', 'saved claimed / real', 'real ≥ claimed − 10%'], verifyRows);
    print(`Held: **${held}/${checked}** recommendations lowered the real cost by at least 90% of the claimed saving.`);
    print();
    print(`## Index size estimates (pages) vs the real index`);
    print();
    table(['index', 'estimated', 'real', 'error'], sizeRows);
    const sizeErrors = sizeRows.map((r) => Math.abs(Number(r[1]) / Number(r[2]) - 1)).sort((a, b) => a - b);
    print(
      `Size estimate error: max ${pct(sizeErrors.at(-1) ?? 0)}, median ${pct(sizeErrors[Math.floor(sizeErrors.length / 2)] ?? 0)} over ${sizeErrors.length} indexes.`,
    );
    print();

    // 5. The whole workload: each set of indexes created for real, the workload's cost measured.
    t = Date.now();
    const workloadCost = async () => {
      let total = 0;
      for (const [, sql, calls] of WORKLOAD) total += (await realPlan(db, sql))['Total Cost'] * calls;
      return total;
    };
    const perQuery = perQueryIndexes(full);
    const GB = 1024 ** 3;
    const sets: [string, { createIndex: string; estimatedPages: number }[]][] = [
      ['none (workload indexes dropped)', []],
      ['one query at a time (each query its own best)', perQuery],
      ['whole workload', full.indexes],
      ['whole workload, at most 10 indexes', rankIndexes(full.queries, { maxIndexes: 10 })],
      ['whole workload, at most 1 GB', rankIndexes(full.queries, { maxBytes: GB })],
    ];
    const workloadRows: (string | number)[][] = [];
    let base = 0;
    for (const [label, set] of sets) {
      const names = set.map((_, k) => `workload_${k}`);
      for (const [k, r] of set.entries()) await db.query(r.createIndex.replace('CREATE INDEX ON', `CREATE INDEX ${names[k]} ON`), [], 'pagila');
      const cost = await workloadCost();
      const real = names.length
        ? await db.query<{ bytes: string }>(
            `SELECT coalesce(sum(coalesce((SELECT sum(pg_relation_size(relid)) FROM pg_partition_tree(n::regclass) WHERE isleaf), pg_relation_size(n::regclass))), 0)::bigint AS bytes FROM unnest($1::text[]) n`,
            [names],
            'pagila',
          )
        : { rows: [{ bytes: '0' }] };
      for (const n of names) await db.query(`DROP INDEX ${n}`, [], 'pagila');
      if (!base) base = cost;
      const estimated = set.reduce((n, r) => n + r.estimatedPages * 8192, 0);
      workloadRows.push([
        label,
        set.length,
        `${(estimated / GB).toFixed(2)} GB`,
        `${(Number(real.rows[0]!.bytes) / GB).toFixed(2)} GB`,
        fmt(cost),
        pct(1 - cost / base),
      ]);
    }
    print(`## The whole workload: indexes chosen for it vs one query at a time (each set created for real, ${seconds(t)})`);
    print();
    table(['method', 'indexes', 'estimated size', 'real size', 'real workload cost (Σ cost × calls)', 'saved'], workloadRows);
    const shared = full.indexes.filter((i) => i.queries.length > 1);
    print(
      `Indexes the workload choice shares between queries: ${shared.length} (${shared.map((i) => `${i.createIndex.replace('CREATE INDEX ON public.', '')}: ${i.queries.length} queries`).join('; ')}).`,
    );
    print();

    print(`## Ranking (top 10 by total saving = cost saved x calls)`);
    print();
    table(
      ['index', 'queries', 'total saved'],
      full.indexes.slice(0, 10).map((r) => [r.createIndex.replace('CREATE INDEX ON public.', ''), r.queries.length, fmt(r.totalSaved)]),
    );
    const errors = full.queries.filter((q) => q.error);
    print(
      `Queries with an error: ${errors.length}. Shadow warnings: ${full.warnings.length}${full.warnings.length ? ` (${full.warnings.slice(0, 3).join('; ')})` : ''}.`,
    );
    // 6. Index selection against Extend, and the saving curves, on both workloads.
    print(`## Index selection: the workload's choice vs Extend at budgets from 1% to 150% of the data`);
    print();
    await compareSelection(report, "Pagila's workload", url, queries, await dataBytes(db, 'pagila'));
    t = Date.now();
    const analytic = await loadAnalytic(db, Number(process.env.ANALYTIC_SCALE ?? 1));
    const analyticBytes = await dataBytes(db, ANALYTIC_DB);
    print(`Analytic star schema (bench/advisor/analytic/): ${(analyticBytes / GB).toFixed(2)} GB of data, generated in ${seconds(t)}.`);
    print();
    await compareSelection(
      report,
      'Analytic workload',
      analytic,
      ANALYTIC_WORKLOAD.map(([label, query, calls]) => ({ hash: label, query, calls })),
      analyticBytes,
    );
    print(`Total benchmark time: ${seconds(t0)}.`);

    const readme = readFileSync(RESULTS_PAGE, 'utf8');
    const start = '<!-- bench:advisor:start -->';
    const end = '<!-- bench:advisor:end -->';
    const a = readme.indexOf(start);
    const b = readme.indexOf(end);
    // under the page's own "## The advisor benchmark's output": the report's headings two levels down
    const section = out.map((line) => (/^#+ /.test(line) ? `##${line}` : line));
    if (a >= 0 && b > a) writeFileSync(RESULTS_PAGE, `${readme.slice(0, a + start.length)}\n${section.join('\n')}\n${readme.slice(b)}`);
  } finally {
    await db.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
