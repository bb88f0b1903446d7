// What the advisor's parts share without importing one another: an index's shape as sizing.ts and
// sizing-gin.ts estimate it.
import type { ColumnSize } from './sizing-tuple.js';

export interface IndexShape {
  am: 'btree' | 'gin';
  keys: string[];
  include: string[];
  tuples: number;
  unique: boolean;
  /** Leaf fillfactor in percent; B-tree's default is 90. */
  fillfactor?: number;
  stat(column: string): ColumnSize;
}

export interface SizeEstimate {
  pages: number;
  /** False: the statistics could not pin the size down, and `pages` is meant as an upper bound. */
  exact: boolean;
  /** Why it is not exact. */
  why?: string;
}
