// What an index would cost to keep: its estimated size, and how often production writes the table
// it is on (each insert and update writes an entry in it), so a large index on a write-heavy table
// can be weighed against the time it saves.
import type { Recommendation } from '../../../shared/analysis';
import { formatBytes, formatNumber } from '../../lib/time';

type Costed = Pick<Recommendation, 'estimatedPages' | 'estimatedBytes' | 'writes'>;

/** Writes per second in the unit that reads best: per second, per minute or per day. */
function formatRate(perSecond: number): string {
  if (perSecond === 0) return '0';
  if (perSecond >= 1) return `${formatNumber(Math.round(perSecond))}/s`;
  if (perSecond * 60 >= 1) return `${formatNumber(Math.round(perSecond * 60))}/min`;
  return `${formatNumber(Math.round(perSecond * 86_400))}/day`;
}

export function indexSize(index: Costed): string {
  return index.estimatedBytes !== undefined ? `~${formatBytes(index.estimatedBytes)}` : `~${formatNumber(index.estimatedPages)} pages`;
}

/** "1,200 writes/s (900 inserts, 300 updates, 12 deletes)", or why it is unknown. */
export function writeOverhead(index: Costed): string {
  const w = index.writes;
  if (!w) return 'unknown';
  if (w.indexWritesPerSec === 0 && w.deletesPerSec === 0) return 'no writes to the table';
  return `${formatRate(w.indexWritesPerSec)} entries (${formatRate(w.insertsPerSec)} inserts, ${formatRate(w.updatesPerSec)} updates, ${formatRate(w.deletesPerSec)} deletes)`;
}

export function writesTitle(index: Costed): string {
  return index.writes
    ? `Production's writes to the table since ${index.writes.since}: each insert and each update writes an entry in every index of the table (a HOT update writes none unless the index covers a column it changes)`
    : 'Production has no write counts for this table';
}
