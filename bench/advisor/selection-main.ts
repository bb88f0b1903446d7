// npm run bench:selection [-- --scale 0.05] [--pagila] [--no-analytic] [--budgets 1,100] [--detail]
// — the index selection part of bench:advisor alone: the advisor's workload choice against Extend
// on the analytic workload (at ~1 GB with scale 1, the default; --no-analytic skips it) and, with
// --pagila, on Pagila's workload, with the saving curves. --budgets chooses the budgets (percent of
// the data); --detail prints both chosen sets per budget and the queries whose costs differ.
import { parseArgs } from 'node:util';
import { startPostgres } from '../../test/support/postgres.js';
import { ANALYTIC_DB, dataBytes, loadAnalytic } from './analytic/load.js';
import { ANALYTIC_WORKLOAD } from './analytic/queries.js';
import { WORKLOAD } from '../advisor-data.js';
import { loadPagila } from './pagila.js';
import { createReport } from './report.js';
import { compareSelection } from './selection.js';

async function main(): Promise<void> {
  const { values } = parseArgs({
    allowNegative: true,
    options: {
      scale: { type: 'string', default: '1' },
      pagila: { type: 'boolean', default: false },
      analytic: { type: 'boolean', default: true },
      budgets: { type: 'string' },
      detail: { type: 'boolean', default: false },
    },
  });
  const scale = Number(values.scale);
  const budgets = values.budgets?.split(',').map(Number);
  if (budgets?.some((b) => !(b > 0))) throw new Error(`--budgets takes percents of the data, comma-separated: ${values.budgets}`);
  const options = { budgets, detail: values.detail };
  const report = createReport();
  const db = await startPostgres({
    statStatements: false,
    settings: { max_wal_size: '8GB', maintenance_work_mem: '512MB', checkpoint_timeout: '30min', shared_buffers: '512MB' },
  });
  try {
    let t = performance.now();
    if (values.analytic) {
      const url = await loadAnalytic(db, scale);
      const bytes = await dataBytes(db, ANALYTIC_DB);
      report.print(
        `Analytic star schema at scale ${scale}: ${(bytes / 1024 ** 3).toFixed(2)} GB of data, generated in ${((performance.now() - t) / 1000).toFixed(0)} s.`,
      );
      report.print();
      t = performance.now();
      const workload = ANALYTIC_WORKLOAD.map(([label, query, calls]) => ({ hash: label, query, calls }));
      await compareSelection(report, 'Analytic workload', url, workload, bytes, options);
      report.print(`Selection comparison: ${((performance.now() - t) / 1000).toFixed(0)} s.`);
    }
    if (values.pagila) {
      t = performance.now();
      const pagila = await loadPagila(db, { workloadIndexes: false });
      const pagilaBytes = await dataBytes(db, 'pagila');
      report.print();
      report.print(`Pagila: ${(pagilaBytes / 1024 ** 3).toFixed(2)} GB of data, loaded in ${((performance.now() - t) / 1000).toFixed(0)} s.`);
      report.print();
      const workload = WORKLOAD.map(([label, query, calls], i) => ({ hash: `q${i + 1} ${label}`, query, calls }));
      await compareSelection(report, "Pagila's workload", pagila, workload, pagilaBytes, options);
    }
  } finally {
    await db.stop();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
