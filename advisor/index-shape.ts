// What the sizing model is given about an index and what it answers: apart from sizing.ts so that
// sizing.ts and sizing-gin.ts (which sizing.ts calls) share it without importing each other.
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
