// The entry of the threads that prepare CI runs (prepare-pool.ts). A worker thread starts as plain
// Node, without the TypeScript loader the server itself may run under (tsx's CLI, vitest), so it
// registers tsx's loader before importing prepare.ts. Plain .mjs, so Node can start it as it is.
import { register } from 'tsx/esm/api';

register();
const { prepareQueries } = await import('./prepare.ts');

/** One task: a run's queries in, its catalog rows and rejections out (structured-cloned both ways). */
export default function prepare(queries) {
  return prepareQueries(queries);
}
