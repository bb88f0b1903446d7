// What sizing.ts is given about an index, read from a snapshot: each column's statistics as the
// planner has them (pg_stats of the table, not inherited ones), the type's storage, and for an
// index production describes (a CI run's schema adds it), its uniqueness, fillfactor and expression
// keys. Looked up through maps built once: a whole schema holds tens of thousands of statistics.
import { columnSize } from './table-map.js';
import { correctedDistinct } from './size-distinct.js';
import { TEXT_TYPES, baseTypeName, typeLayout, type ColumnSize } from './sizing-tuple.js';
import type { IndexShape } from './index-shape.js';
import type { SnapshotColumnStats, Snapshot } from '../snapshot/types.js';

/** What an index to size is: a candidate's columns, or an index definition's. */
export interface SizedIndex {
  schema: string;
  table: string;
  am: 'btree' | 'gin';
  /** Column names; '' for an expression key. */
  keys: string[];
  include: string[];
  unique?: boolean;
  /** pg_get_indexdef's text, for an index with expression keys or storage parameters. */
  definition?: string;
}

export type SizeInputs = (index: SizedIndex, tuples: number) => IndexShape;

const EXPRESSION_GUESS = 'an expression key without statistics: sized as wide as the columns it reads, never NULL and without duplicates';

/** Builds the lookup once for a snapshot; each call gives one index's shape on `tuples` rows. */
export function sizeInputs(snapshot: Snapshot): SizeInputs {
  const stats = new Map<string, SnapshotColumnStats>();
  for (const s of snapshot.stats) {
    const key = JSON.stringify([s.schema, s.table, s.column]);
    if (!s.inherited && !stats.has(key)) stats.set(key, s);
  }
  const columns = new Map(snapshot.columns.map((c) => [JSON.stringify([c.schema, c.table, c.name]), c]));
  const tableColumns = new Map<string, string[]>();
  for (const c of snapshot.columns) tableColumns.set(`${c.schema}.${c.table}`, [...(tableColumns.get(`${c.schema}.${c.table}`) ?? []), c.name]);

  const reltuples = new Map(snapshot.relations.map((r) => [`${r.schema}.${r.name}`, r.reltuples]));
  // ANALYZE samples 300 rows per unit of the statistics target (a column's own target is not read).
  const sampleRows = 300 * Number(snapshot.settings.default_statistics_target ?? 100);
  const cache = new Map<string, ColumnSize>();
  const column = (schema: string, table: string, name: string): ColumnSize => {
    const key = JSON.stringify([schema, table, name]);
    if (!cache.has(key)) cache.set(key, readColumn(key, schema, table, name));
    return cache.get(key)!;
  };
  const readColumn = (key: string, schema: string, table: string, name: string): ColumnSize => {
    const s = stats.get(key);
    const info = columns.get(key);
    const base = columnSize({ ...snapshot, stats: s ? [s] : [] }, schema, table, name);
    const layout = info ? typeLayout(info.type, info.category) : undefined;
    if (!s) return { ...base, ...(layout && { layout }), guess: `no statistics for ${name}: taken as 8 bytes wide and unique` };
    const v = s.values;
    const type = info ? baseTypeName(info.type) : '';
    const width = TEXT_TYPES.has(type) ? storedWidth : type === 'numeric' ? numericWidth : undefined;
    const samples = width ? weightedSamples(arrayItems(v.most_common_vals), numbers(v.most_common_freqs), arrayItems(v.histogram_bounds), base.nullFrac) : [];
    const elems = numbers(v.elem_count_histogram);
    const mcvFreqs = numbers(v.most_common_freqs);
    const bounds = INTEGER_TYPES.has(type) ? numbers(v.histogram_bounds) : type === 'date' ? days(v.histogram_bounds) : [];
    const rows = Math.max(reltuples.get(`${schema}.${table}`) ?? 0, 0);
    const distinct = correctedDistinct({ rows, sampleRows, distinct: base.distinct, nullFrac: base.nullFrac, mcvFreqs, bounds });
    return {
      ...base,
      distinct,
      ...(layout && { layout }),
      mcvFreqs,
      ...(width && samples.length && { widths: samples.map(width) }),
      ...(bounds.length && { bounds }),
      // The histogram's last entry is the average count of distinct elements per non-NULL row.
      ...(elems.length && { elemsPerRow: elems[elems.length - 1], elemFreqs: numbers(v.most_common_elem_freqs) }),
    };
  };

  return (index, tuples) => {
    const fillfactor = /fillfactor\s*=\s*'?(\d+)/i.exec(index.definition ?? '')?.[1];
    const stat = (name: string): ColumnSize =>
      name === '' ? expressionSize(index, tableColumns.get(`${index.schema}.${index.table}`) ?? [], column, tuples) : column(index.schema, index.table, name);
    return {
      am: index.am,
      keys: index.keys,
      include: index.include,
      tuples,
      unique: index.unique ?? false,
      ...(fillfactor && { fillfactor: Number(fillfactor) }),
      stat,
    };
  };
}

/**
 * An expression key has no statistics until its index exists and is analyzed. Sized cautiously:
 * as wide as the table's columns it names together (lower() or date_trunc() keep the width; md5()
 * gives 33 bytes whatever it reads), at least 8 bytes, never NULL, every value distinct.
 */
function expressionSize(index: SizedIndex, names: string[], column: (s: string, t: string, c: string) => ColumnSize, tuples: number): ColumnSize {
  const text = index.definition ?? '';
  const keyPart = text.slice(text.indexOf('('));
  const read = names.filter((n) => new RegExp(`(^|[^\\w"])(${escapeRegExp(n)}|"${escapeRegExp(n.replace(/"/g, '""'))}")($|[^\\w"])`).test(keyPart));
  const width = read.reduce((s, n) => s + column(index.schema, index.table, n).avgWidth, 0);
  return { avgWidth: Math.max(width, /\bmd5\s*\(/i.test(keyPart) ? 33 : 8), nullFrac: 0, distinct: Math.max(tuples, 1), guess: EXPRESSION_GUESS };
}

const INTEGER_TYPES = new Set(['smallint', 'integer', 'bigint']);

/**
 * A date histogram's bounds as day numbers, which count the values a range can hold as an
 * integer's do. The snapshot reads them in DateStyle ISO; anything else (BC, infinity) leaves the
 * histogram unread, and the values not most common are then taken as equally common.
 */
function days(value: unknown): number[] {
  const items = arrayItems(value);
  const out = items.map((d) => (d && /^\d{4}-\d{2}-\d{2}$/.test(d) ? Date.parse(`${d}T00:00:00Z`) / 86_400_000 : NaN));
  return out.every(Number.isFinite) ? out : [];
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Bytes a text value is stored in: its UTF-8 bytes and a 1-byte length header, or 4 bytes from 127 on. */
function storedWidth(value: string): number {
  const bytes = Buffer.byteLength(value, 'utf8');
  return bytes + 1 <= 127 ? bytes + 1 : bytes + 4;
}

/** Representative values this many per column: each most common value by its share, the histogram's the rest. */
const SAMPLES = 100;

/**
 * Sampled values, each as often as its share of the non-NULL rows: a most common value by its
 * frequency, the histogram's bounds evenly over the rest (they bound buckets of equal rows).
 */
function weightedSamples(common: (string | null)[], freqs: number[], bounds: (string | null)[], nullFrac: number): string[] {
  const nonNull = Math.max(1 - nullFrac, 1e-9);
  const out: string[] = [];
  common.forEach((v, i) => {
    if (v !== null) for (let n = Math.round(((freqs[i] ?? 0) / nonNull) * SAMPLES); n > 0; n--) out.push(v);
  });
  const rest = Math.max(0, 1 - freqs.reduce((s, f) => s + f, 0) / nonNull);
  const values = bounds.filter((v): v is string => v !== null);
  const each = values.length ? (rest * SAMPLES) / values.length : 0;
  let owed = 0;
  for (const v of values) {
    owed += each;
    for (; owed >= 1; owed--) out.push(v);
  }
  return out;
}

/**
 * Bytes a numeric is stored in, from its text: base-10000 digits without leading or trailing zero
 * groups, 2 bytes each, after a 2-byte header and a 1-byte length header (the short format).
 */
function numericWidth(value: string): number {
  const [int = '', frac = ''] = value.replace(/^-/, '').split('.');
  if (!/^\d*$/.test(int) || !/^\d*$/.test(frac)) return 3; // NaN, Infinity
  const intGroups = int.padStart(Math.ceil(int.length / 4) * 4, '0').match(/.{4}/g) ?? [];
  const fracGroups = frac.padEnd(Math.ceil(frac.length / 4) * 4, '0').match(/.{4}/g) ?? [];
  const groups = [...intGroups, ...fracGroups];
  const first = groups.findIndex((g) => g !== '0000');
  if (first < 0) return 3;
  const last = groups.length - 1 - [...groups].reverse().findIndex((g) => g !== '0000');
  return 3 + 2 * (last - first + 1);
}

/** A statistics array as numbers, whether the driver parsed it or left it as `{0.1,0.2}`. */
function numbers(value: unknown): number[] {
  if (Array.isArray(value)) return value.map(Number).filter(Number.isFinite);
  return arrayItems(value)
    .map(Number)
    .filter((n) => Number.isFinite(n));
}

/** The elements of a one-dimensional array literal as PostgreSQL prints it: `{a,"b c",NULL}`. */
export function arrayItems(value: unknown): (string | null)[] {
  if (typeof value !== 'string' || !value.startsWith('{')) return [];
  const out: (string | null)[] = [];
  let i = 1;
  while (i < value.length && value[i] !== '}') {
    let item = '';
    if (value[i] === '"') {
      for (i++; i < value.length && value[i] !== '"'; i++) item += value[i] === '\\' ? value[++i] : value[i];
      i++;
      out.push(item);
    } else {
      for (; i < value.length && value[i] !== ',' && value[i] !== '}'; i++) item += value[i];
      out.push(item === 'NULL' ? null : item);
    }
    if (value[i] === ',') i++;
  }
  return out;
}
