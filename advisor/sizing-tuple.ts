// The bytes one index tuple takes, laid out as index_form_tuple lays it out: an 8-byte header
// (16 when the tuple holds a NULL: the header is followed by a null bitmap and MAXALIGNed), then
// each column aligned to its type, a NULL taking no room, and the whole tuple MAXALIGNed.
// A variable-length value under 127 bytes has a 1-byte length header and no alignment; a longer
// one has a 4-byte header and is aligned to 4 bytes.

/** How a type is stored: its fixed length (-1: variable), its alignment, and whether B-tree deduplicates it. */
export interface TypeLayout {
  len: number;
  align: number;
  /**
   * Whether equal values are always equal images (the opclass has an equalimage function), which
   * B-tree deduplication needs: not numeric (display scale), float (-0 and 0), interval, arrays or jsonb.
   */
  dedup: boolean;
}

/** What the planner's statistics say of one column (or index expression). */
export interface ColumnSize {
  /** pg_stats.avg_width: average stored bytes of its non-NULL values. */
  avgWidth: number;
  nullFrac: number;
  /** Distinct non-NULL values. */
  distinct: number;
  /** pg_stats.most_common_freqs: share of all rows each most common value has. */
  mcvFreqs?: number[];
  /** Absent: a variable-length type, not deduplicated (the cautious reading). */
  layout?: TypeLayout;
  /** Stored widths of sampled values (most common values and histogram bounds), for the alignment padding they get. */
  widths?: number[];
  /** Why these figures are not the column's statistics (e.g. an expression without any). */
  guess?: string;
  /** Histogram bounds of an integer column: where the values that are not most common lie. */
  bounds?: number[];
  /** Arrays: average distinct elements per row (pg_stats.elem_count_histogram), for GIN. */
  elemsPerRow?: number;
  /** Arrays: pg_stats.most_common_elem_freqs as it is (with its three trailing figures), for GIN. */
  elemFreqs?: number[];
}

const VARLENA: TypeLayout = { len: -1, align: 4, dedup: false };
const fixed = (len: number, align: number, dedup = true): TypeLayout => ({ len, align, dedup });
const LAYOUTS: Record<string, TypeLayout> = {
  smallint: fixed(2, 2),
  integer: fixed(4, 4),
  bigint: fixed(8, 8),
  oid: fixed(4, 4),
  boolean: fixed(1, 1),
  '"char"': fixed(1, 1),
  date: fixed(4, 4),
  'time without time zone': fixed(8, 8),
  'time with time zone': fixed(12, 8),
  'timestamp without time zone': fixed(8, 8),
  'timestamp with time zone': fixed(8, 8),
  interval: fixed(16, 8, false),
  uuid: fixed(16, 1),
  real: fixed(4, 4, false),
  'double precision': fixed(8, 8, false),
  money: fixed(8, 8),
  name: fixed(64, 1),
  text: { len: -1, align: 4, dedup: true },
  'character varying': { len: -1, align: 4, dedup: true },
  character: { len: -1, align: 4, dedup: true },
  bytea: { len: -1, align: 4, dedup: true },
};

/** Types whose text form, as pg_stats prints sampled values, is their stored content. */
export const TEXT_TYPES = new Set(['text', 'character varying', 'character']);

/** The type's storage from format_type's name and pg_type.typcategory (enums are 4-byte oids). */
export function typeLayout(type: string, category: string): TypeLayout {
  if (category === 'E') return fixed(4, 4);
  if (category === 'A') return VARLENA;
  return LAYOUTS[baseTypeName(type)] ?? VARLENA;
}

/** format_type's name without its modifiers: `character varying(20)` is `character varying`. */
export const baseTypeName = (type: string) => type.replace(/\(.*?\)/, '').trim();

const MAXALIGN = 8;
const alignUp = (n: number, a: number) => Math.ceil(n / a) * a;
/** Largest value with a 1-byte length header, header included. */
const SHORT_MAX = 127;

/**
 * Average bytes of a tuple holding `present` columns (the others NULL), MAXALIGNed. Sampled widths
 * give the padding each tuple really gets (equal-length keys all get the same); a variable width
 * known only on average gets the average padding, 3.5 bytes.
 */
export function tupleBytes(columns: ColumnSize[], present: boolean[]): number {
  const sizes = sampledTupleBytes(columns, present);
  return sizes.reduce((s, x) => s + x, 0) / sizes.length + widthCorrections(columns, present);
}

/**
 * Average bytes of the tuple a page ends on. A page is closed by the tuple that crosses its fill
 * line, and a wide tuple crosses it more often than a narrow one: each sampled size counts by its
 * bytes (Σ size² / Σ size). That tuple moves to the next page and its key becomes the pivot above.
 */
export function pageEndTupleBytes(columns: ColumnSize[], present: boolean[]): number {
  const sizes = sampledTupleBytes(columns, present);
  return sizes.reduce((s, x) => s + x * x, 0) / sizes.reduce((s, x) => s + x, 0) + widthCorrections(columns, present);
}

/** The bytes of a tuple for each sampled width (one tuple of average widths when none is sampled). */
function sampledTupleBytes(columns: ColumnSize[], present: boolean[]): number[] {
  const anyNull = present.some((p) => !p);
  const header = anyNull ? 16 : 8;
  const samples = Math.max(1, ...columns.map((c, i) => (present[i] && (c.layout?.len ?? -1) < 0 ? (c.widths?.length ?? 0) : 0)));
  const out: number[] = [];
  for (let k = 0; k < samples; k++) {
    let offset = header;
    let unsampled = false;
    columns.forEach((c, i) => {
      if (!present[i]) return;
      const layout = c.layout ?? VARLENA;
      if (layout.len > 0) {
        offset = alignUp(offset, layout.align) + layout.len;
        return;
      }
      const width = sampledWidth(c, k);
      unsampled ||= !c.widths?.length;
      if (width >= SHORT_MAX) offset = alignUp(offset, layout.align);
      offset += width;
    });
    // A width known only on average: the padding a varied width gets on average.
    out.push(unsampled ? offset + (MAXALIGN - 1) / 2 : alignUp(offset, MAXALIGN));
  }
  return out;
}

const widthCorrections = (columns: ColumnSize[], present: boolean[]) =>
  columns.reduce((s, c, i) => s + (present[i] && (c.layout?.len ?? -1) < 0 ? widthCorrection(c) : 0), 0);

/**
 * The k-th sampled width. pg_stats.avg_width, truncated to whole bytes, is taken as half a byte
 * more; it comes from a larger sample than the hundred or so values kept, so when the kept ones
 * average over a byte off, the tuple is moved by the difference (widthCorrection).
 */
function sampledWidth(c: ColumnSize, k: number): number {
  return c.widths?.length ? c.widths[k % c.widths.length]! : c.avgWidth + 0.5;
}

function widthCorrection(c: ColumnSize): number {
  if (!c.widths?.length) return 0;
  const shift = c.avgWidth + 0.5 - c.widths.reduce((s, x) => s + x, 0) / c.widths.length;
  return Math.abs(shift) < 1 ? 0 : shift;
}
