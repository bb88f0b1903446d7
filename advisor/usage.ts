// How a query uses the columns of each table it names, read from PostgreSQL's own parse tree
// (libpg-query): which columns are compared with a value (equality or range), joined to another
// table, sorted or grouped on, tested for containment (jsonb/array), fixed by a constant (a
// partial-index predicate), or only read. candidates.ts turns these usages into indexes to try.
import { parseSync } from 'libpg-query';
import type { TableMap, TableName } from './table-map.js';
import { quoteIdent, quoteLiteral } from './sql-text.js';

/** Most distinct values a column may have for `col = literal` to be taken as a partial-index predicate. */
export const PARTIAL_MAX_DISTINCT = 100;

export type PredicateKind = 'eq' | 'range' | 'join' | 'contain';

export interface ColumnUse {
  column: string;
  kind: PredicateKind;
  /** SQL of the whole conjunct when it compares the column with a constant: a partial-index predicate. */
  constant?: string;
  /** Under an OR: usable by a bitmap OR of single-column indexes, not as a composite's part. */
  inOr?: boolean;
}

export interface TableUsage extends TableName {
  uses: ColumnUse[];
  /** Conjuncts such as `col IS NOT NULL` that only a partial index predicate can use. */
  filters: string[];
  orderBy: string[];
  /** Per orderBy column: sorted descending. */
  orderDesc?: boolean[];
  groupBy: string[];
  /** Columns the query reads from this table; null when it reads all (`*`). */
  referenced: Set<string> | null;
}

// Any JSON node of the libpg-query tree.
type Node = Record<string, unknown>;

const isObj = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);
const child = (n: Node, key: string): Node | undefined => (isObj(n[key]) ? (n[key] as Node) : undefined);
const list = (v: unknown): Node[] => (Array.isArray(v) ? (v.filter(isObj) as Node[]) : []);
const sval = (n: Node | undefined): string | undefined => (n && isObj(n.String) ? (n.String.sval as string | undefined) : undefined);

/** SQL text of a literal (possibly cast) or undefined when the node is not a constant. */
function constantText(node: Node | undefined): string | undefined {
  if (!node) return undefined;
  const c = child(node, 'A_Const');
  if (c) {
    if (c.isnull) return 'NULL';
    if (isObj(c.ival)) return String((c.ival.ival as number | undefined) ?? 0);
    if (isObj(c.fval)) return String(c.fval.fval);
    if (isObj(c.boolval)) return c.boolval.boolval ? 'true' : 'false';
    if (isObj(c.sval)) return quoteLiteral(String(c.sval.sval ?? ''));
    return undefined;
  }
  const cast = child(node, 'TypeCast');
  if (cast) {
    const inner = constantText(child(cast, 'arg'));
    const typeName = child(cast, 'typeName');
    const names = list(typeName?.names)
      .map(sval)
      .filter((s): s is string => !!s && s !== 'pg_catalog');
    if (inner === undefined || names.length === 0) return undefined;
    return `${inner}::${names.map(quoteIdent).join('.')}`;
  }
  return undefined;
}

/** True when a subtree holds no column reference (a value for the executor: constant, $n, now()). */
function isValue(node: Node | undefined): boolean {
  if (!node) return false;
  let found = false;
  const visit = (v: unknown) => {
    if (found) return;
    if (Array.isArray(v)) return v.forEach(visit);
    if (!isObj(v)) return;
    if ('ColumnRef' in v || 'SubLink' in v) {
      found = true;
      return;
    }
    Object.values(v).forEach(visit);
  };
  visit(node);
  return !found;
}

/** A table named in FROM: its usage collects what the query asks of it. */
interface TableEntry extends TableName {
  kind: 'table';
  alias: string;
  usage: TableUsage;
}

/**
 * A view, an inlined CTE or a subquery in FROM: its output columns, each traced to the table
 * column it is when the planner can push a condition on it down to that table (a plain column of
 * a subquery it pulls up or pushes quals into); undefined behind a fence (a materialized CTE, a
 * LIMIT, a window function, a computed value).
 */
interface DerivedEntry {
  kind: 'derived';
  alias: string;
  columns: OutputColumn[];
}

type ScopeEntry = TableEntry | DerivedEntry;

interface OutputColumn {
  name: string;
  source: ScopedColumn | undefined;
}

/** A CTE as the query names it: inlined at each reference, or a fence with only its column names. */
interface CteDef {
  query: Node;
  names: string[];
  inline: boolean;
  /** The scope its query is read in: outer query levels and the CTEs defined before it. */
  scope: Scope;
  fenced: OutputColumn[];
}

interface Scope {
  entries: ScopeEntry[];
  parent?: Scope;
  ctes: Map<string, CteDef>;
}

/** A column of a table in scope. */
interface ScopedColumn {
  entry: TableEntry;
  column: string;
}

/** `$1 < col` reads as `col > $1`: operators as seen from the column's side. */
const FLIP: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '@>': '<@', '<@': '@>', '&&': '&&' };
const RANGE_OPS = new Set(['<', '>', '<=', '>=']);
const CONTAIN_OPS = new Set(['@>', '&&', '?', '?|', '?&']);

/** Views within views are followed this deep (a view cannot refer to itself, but a bad snapshot could). */
const MAX_VIEW_DEPTH = 16;

/** Output columns renamed by a column alias list (`AS s(a, b)`, `WITH c(a, b) AS`), by position. */
const renamed = (columns: OutputColumn[], names: string[]): OutputColumn[] => columns.map((c, i) => ({ name: names[i] ?? c.name, source: c.source }));
const fenced = (columns: OutputColumn[]): OutputColumn[] => columns.map((c) => ({ name: c.name, source: undefined }));

/** How many times a name is read as a table (unqualified) anywhere under a node: a CTE's references. */
function referenceCount(node: unknown, name: string): number {
  if (Array.isArray(node)) return node.reduce((n: number, v) => n + referenceCount(v, name), 0);
  if (!isObj(node)) return 0;
  const rv = child(node, 'RangeVar');
  if (rv && !rv.schemaname && rv.relname === name) return 1;
  return Object.values(node).reduce((n: number, v) => n + referenceCount(v, name), 0);
}

/** True when a node holds a window function call: the planner pushes no condition below it. */
function hasWindow(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(hasWindow);
  if (!isObj(node)) return false;
  const call = child(node, 'FuncCall');
  if (call && call.over) return true;
  return Object.values(node).some(hasWindow);
}

/**
 * Collects, per table reference, how a statement (and its subqueries) uses columns, the way the
 * planner sees them after rewriting: a view is replaced by its query, a CTE the planner inlines (not
 * MATERIALIZED, read once or NOT MATERIALIZED, not recursive) by its query at each reference, and a
 * condition or sort on a view's, CTE's or subquery's column lands on the table column it is.
 */
export class UsageCollector {
  readonly usages: TableUsage[] = [];
  private viewDepth = 0;
  private readonly views = new Map<string, Node | undefined>();
  constructor(private readonly tables: TableMap) {}

  collect(sql: string): TableUsage[] {
    const tree = parseSync(sql) as { stmts?: { stmt?: Node }[] };
    for (const s of tree.stmts ?? []) if (s.stmt) this.statement(s.stmt, undefined);
    return this.usages;
  }

  /** Reads one statement; returns its output columns (a SELECT's; none for others). */
  private statement(stmt: Node, parent: Scope | undefined): OutputColumn[] {
    const select = child(stmt, 'SelectStmt');
    if (select) return this.select(select, parent);
    // UPDATE/DELETE: their WHERE finds rows like a SELECT's does.
    const dml = child(stmt, 'UpdateStmt') ?? child(stmt, 'DeleteStmt');
    if (dml) {
      const scope: Scope = { entries: [], parent, ctes: new Map(parent?.ctes ?? []) };
      this.withClause(child(dml, 'withClause'), stmt, scope);
      const rel = child(dml, 'relation');
      if (rel) this.rangeVar(rel, scope);
      for (const f of [...list(dml.fromClause), ...list(dml.usingClause)]) this.fromItem(f, scope);
      this.conjuncts(child(dml, 'whereClause'), scope, false);
      return [];
    }
    this.walk(stmt, parent ?? { entries: [], ctes: new Map() });
    return [];
  }

  /** Registers a WITH clause's CTEs in `scope`; a fenced one is read once, here. */
  private withClause(withClause: Node | undefined, body: Node, scope: Scope): void {
    const recursive = !!withClause?.recursive;
    for (const cte of list(withClause?.ctes)) {
      const c = child(cte, 'CommonTableExpr');
      const query = c && child(c, 'ctequery');
      if (!c || !query) continue;
      const name = String(c.ctename);
      const names = list(c.aliascolnames)
        .map(sval)
        .filter((s): s is string => !!s);
      // PostgreSQL inlines a side-effect-free, non-recursive CTE read once, or any NOT MATERIALIZED one.
      const materialized = String(c.ctematerialized ?? '');
      const inline =
        !recursive &&
        !!child(query, 'SelectStmt') &&
        materialized !== 'CTEMaterializeAlways' &&
        (materialized === 'CTEMaterializeNever' || referenceCount(body, name) <= 1);
      const def: CteDef = { query, names, inline, scope: { entries: [], parent: scope.parent, ctes: new Map(scope.ctes) }, fenced: [] };
      if (recursive) def.scope.ctes.set(name, def);
      // Its own conditions still find rows inside the fence; outside, its columns are no table's.
      if (!inline) def.fenced = fenced(renamed(this.statement(query, def.scope), names));
      scope.ctes.set(name, def);
    }
  }

  private select(select: Node, parent: Scope | undefined): OutputColumn[] {
    const scope: Scope = { entries: [], parent, ctes: new Map(parent?.ctes ?? []) };
    this.withClause(child(select, 'withClause'), select, scope);
    // UNION and friends: each arm is its own SELECT; their columns are taken as a fence.
    const larg = child(select, 'larg');
    const rarg = child(select, 'rarg');
    if (larg || rarg) {
      const left = larg ? this.select(larg, scope) : [];
      if (rarg) this.select(rarg, scope);
      return fenced(left);
    }
    for (const f of list(select.fromClause)) this.fromItem(f, scope);
    this.conjuncts(child(select, 'whereClause'), scope, false);
    const targets = list(select.targetList)
      .map((t) => child(t, 'ResTarget'))
      .filter((t): t is Node => !!t);
    const outputs = this.outputs(targets, scope);
    for (const t of list(select.targetList)) this.walk(t, scope);
    this.walk(child(select, 'havingClause'), scope);
    const sorts = list(select.sortClause)
      .map((s) => child(s, 'SortBy'))
      .filter((s): s is Node => !!s);
    const sortCols = this.columnList(
      sorts.map((s) => this.orderItem(child(s, 'node'), outputs, scope, true)),
      sorts.map((s) => s.sortby_dir === 'SORTBY_DESC'),
    );
    if (sortCols) {
      sortCols.entry.usage.orderBy = sortCols.columns;
      sortCols.entry.usage.orderDesc = sortCols.desc;
    }
    const groupCols = this.columnList(list(select.groupClause).map((g) => this.orderItem(g, outputs, scope, false)));
    if (groupCols) groupCols.entry.usage.groupBy = groupCols.columns;
    for (const s of list(select.sortClause)) this.walk(s, scope);
    for (const g of list(select.groupClause)) this.walk(g, scope);
    // A LIMIT or a window function keeps outer conditions out: they would change its result.
    const fence = !!child(select, 'limitCount') || !!child(select, 'limitOffset') || hasWindow(select.targetList);
    return fence ? fenced(outputs) : outputs;
  }

  /** The SELECT list's columns in order, `*` expanded, each traced to its table column when it is one. */
  private outputs(targets: Node[], scope: Scope): OutputColumn[] {
    const out: OutputColumn[] = [];
    for (const t of targets) {
      const val = child(t, 'val');
      const ref = val && child(val, 'ColumnRef');
      const fields = list(ref?.fields);
      if (ref && fields.some((f) => 'A_Star' in f)) {
        const qualifier = fields.length > 1 ? sval(fields[fields.length - 2]) : undefined;
        for (const e of scope.entries) if (!qualifier || e.alias === qualifier) out.push(...this.entryColumns(e));
        continue;
      }
      const name = (t.name as string | undefined) ?? (ref ? sval(fields[fields.length - 1]) : undefined) ?? '?column?';
      out.push({ name, source: this.columnOf(val, scope) });
    }
    return out;
  }

  /** Every column of a FROM item, in its order: a table's from the table map, a derived one's as traced. */
  private entryColumns(e: ScopeEntry): OutputColumn[] {
    if (e.kind === 'derived') return e.columns;
    return [...(this.tables.columns(e)?.keys() ?? [])].map((column) => ({ name: column, source: { entry: e, column } }));
  }

  /**
   * A sort or group item as the column it is: `ORDER BY 2` is the second output column; a bare
   * name is, in ORDER BY, an output column's name first (an alias), then an input column; in
   * GROUP BY the input column comes first.
   */
  private orderItem(node: Node | undefined, outputs: OutputColumn[], scope: Scope, outputFirst: boolean): ScopedColumn | undefined {
    if (!node) return undefined;
    const k = child(node, 'A_Const');
    if (k && isObj(k.ival)) return outputs[Number(k.ival.ival ?? 0) - 1]?.source;
    const fields = list(child(node, 'ColumnRef')?.fields);
    const single = fields.length === 1 ? sval(fields[0]) : undefined;
    const output = single === undefined ? undefined : outputs.find((o) => o.name === single);
    if (output && outputFirst) return output.source;
    return this.columnOf(node, scope) ?? output?.source;
  }

  /** The columns of a list when all are plain columns of one table (a sort an index can give). */
  private columnList(items: (ScopedColumn | undefined)[], desc: boolean[] = []): { entry: TableEntry; columns: string[]; desc: boolean[] } | undefined {
    if (items.length === 0) return undefined;
    let entry: TableEntry | undefined;
    const columns: string[] = [];
    for (const r of items) {
      if (!r || (entry && r.entry !== entry)) return undefined;
      entry = r.entry;
      columns.push(r.column);
    }
    return entry ? { entry, columns, desc: columns.map((_, i) => desc[i] ?? false) } : undefined;
  }

  private cte(name: string, scope: Scope): CteDef | undefined {
    for (let s: Scope | undefined = scope; s; s = s.parent) if (s.ctes.has(name)) return s.ctes.get(name);
    return undefined;
  }

  /** A view's query, parsed once per collector; undefined for a name that is no view. */
  private viewQuery(schema: string | undefined, name: string): Node | undefined {
    const sql = this.tables.view?.(schema, name);
    if (sql === undefined) return undefined;
    if (!this.views.has(sql)) {
      const stmt = (parseSync(sql) as { stmts?: { stmt?: Node }[] }).stmts?.[0]?.stmt;
      this.views.set(sql, stmt && child(child(stmt, 'ViewStmt') ?? {}, 'query'));
    }
    return this.views.get(sql);
  }

  private rangeVar(rv: Node, scope: Scope): ScopeEntry | undefined {
    const name = String(rv.relname);
    const schema = rv.schemaname as string | undefined;
    const aliasNode = child(rv, 'alias');
    const alias = (aliasNode?.aliasname as string | undefined) ?? name;
    const aliasColumns = list(aliasNode?.colnames)
      .map(sval)
      .filter((s): s is string => !!s);
    const derived = (columns: OutputColumn[]): DerivedEntry => {
      const entry: DerivedEntry = { kind: 'derived', alias, columns: renamed(columns, aliasColumns) };
      scope.entries.push(entry);
      return entry;
    };
    const cte = schema ? undefined : this.cte(name, scope);
    if (cte) return derived(cte.inline ? renamed(this.statement(cte.query, cte.scope), cte.names) : cte.fenced);
    const table = this.tables.resolve(schema, name);
    if (!table) {
      const view = this.viewQuery(schema, name);
      if (!view || this.viewDepth >= MAX_VIEW_DEPTH) return undefined;
      this.viewDepth++;
      try {
        // A view sees no outer query level: its query is read on its own.
        return derived(this.statement(view, undefined));
      } finally {
        this.viewDepth--;
      }
    }
    const usage: TableUsage = { ...table, uses: [], filters: [], orderBy: [], groupBy: [], referenced: new Set() };
    this.usages.push(usage);
    const entry: TableEntry = { kind: 'table', ...table, alias, usage };
    scope.entries.push(entry);
    return entry;
  }

  private fromItem(item: Node, scope: Scope): ScopeEntry[] {
    const rv = child(item, 'RangeVar');
    if (rv) {
      const e = this.rangeVar(rv, scope);
      return e ? [e] : [];
    }
    const join = child(item, 'JoinExpr');
    if (join) {
      const left = this.fromItem(child(join, 'larg') ?? {}, scope);
      const right = this.fromItem(child(join, 'rarg') ?? {}, scope);
      for (const u of list(join.usingClause)) {
        const col = sval(u);
        if (!col) continue;
        for (const e of [...left, ...right]) {
          const c = this.lookup(e, col).column;
          if (c) this.use(c.entry, { column: c.column, kind: 'join' });
        }
      }
      // Conditions of an outer join's ON still drive index choice for the inner side.
      this.conjuncts(child(join, 'quals'), scope, false);
      return [...left, ...right];
    }
    const sub = child(item, 'RangeSubselect');
    if (sub) {
      const q = child(sub, 'subquery');
      if (!q) return [];
      const aliasNode = child(sub, 'alias');
      const columns = this.statement(q, sub.lateral ? scope : scope.parent);
      const entry: DerivedEntry = {
        kind: 'derived',
        alias: (aliasNode?.aliasname as string | undefined) ?? '',
        columns: renamed(
          columns,
          list(aliasNode?.colnames)
            .map(sval)
            .filter((s): s is string => !!s),
        ),
      };
      scope.entries.push(entry);
      return [entry];
    }
    this.walk(item, scope);
    return [];
  }

  /** Whether a FROM item has a column of that name, and the table column it is when it is one. */
  private lookup(e: ScopeEntry, column: string): { found: boolean; column?: ScopedColumn } {
    if (e.kind === 'table') return this.tables.columns(e)?.has(column) ? { found: true, column: { entry: e, column } } : { found: false };
    const c = e.columns.find((x) => x.name === column);
    return c ? { found: true, column: c.source } : { found: false };
  }

  private resolveColumn(ref: Node, scope: Scope): ScopedColumn | undefined {
    const fields = list(ref.fields).map(sval);
    if (fields.some((f) => f === undefined)) return undefined; // `*` or `t.*`
    const names = fields as string[];
    const column = names[names.length - 1]!;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (names.length === 1) {
        const matches = s.entries.map((e) => this.lookup(e, column)).filter((m) => m.found);
        if (matches.length === 1) return matches[0]!.column;
        if (matches.length > 1) return undefined;
      } else {
        const qualifier = names[names.length - 2]!;
        const e = s.entries.find((x) => x.alias === qualifier && (names.length < 3 || (x.kind === 'table' && x.schema === names[names.length - 3])));
        if (e) return this.lookup(e, column).column;
      }
    }
    return undefined;
  }

  /** The table column a node is, when it is a plain column reference. */
  private columnOf(node: Node | undefined, scope: Scope): ScopedColumn | undefined {
    const ref = node && child(node, 'ColumnRef');
    return ref ? this.resolveColumn(ref, scope) : undefined;
  }

  private use(entry: TableEntry, use: ColumnUse): void {
    const dup = entry.usage.uses.some((u) => u.column === use.column && u.kind === use.kind && u.constant === use.constant && !!u.inOr === !!use.inOr);
    if (!dup) entry.usage.uses.push(use);
  }

  /** Splits an AND tree and classifies each conjunct; an OR's arms are classified as `inOr`. */
  private conjuncts(node: Node | undefined, scope: Scope, inOr: boolean): void {
    if (!node) return;
    const bool = child(node, 'BoolExpr');
    if (bool && bool.boolop === 'AND_EXPR') return list(bool.args).forEach((a) => this.conjuncts(a, scope, inOr));
    if (bool && bool.boolop === 'OR_EXPR') return list(bool.args).forEach((a) => this.conjuncts(a, scope, true));
    this.classify(node, scope, inOr);
    this.walk(node, scope);
  }

  /** What one conjunct asks of a column: a NULL test, a boolean column, or a comparison. */
  private classify(node: Node, scope: Scope, inOr: boolean): void {
    const nullTest = child(node, 'NullTest');
    if (nullTest) return this.nullTest(nullTest, scope, inOr);
    if (this.booleanColumn(node, scope, inOr)) return;
    const expr = child(node, 'A_Expr');
    if (expr) this.comparison(expr, scope, inOr);
  }

  /**
   * `col IS NULL` finds rows like an equality does (a B-tree indexes NULLs) and is a constant
   * predicate; `col IS NOT NULL` selects too much to seek, so only a partial index can use it.
   */
  private nullTest(test: Node, scope: Scope, inOr: boolean): void {
    const c = this.columnOf(child(test, 'arg'), scope);
    if (!c) return;
    const isNull = test.nulltesttype === 'IS_NULL';
    const text = `${quoteIdent(c.column)} ${isNull ? 'IS NULL' : 'IS NOT NULL'}`;
    if (isNull) this.use(c.entry, { column: c.column, kind: 'eq', constant: text, inOr });
    else if (!inOr) c.entry.usage.filters.push(text);
  }

  /** A bare boolean column (`WHERE active`), or NOT of one: an equality with a constant. True when it was one. */
  private booleanColumn(node: Node, scope: Scope, inOr: boolean): boolean {
    const bool = child(node, 'BoolExpr');
    const negated = bool?.boolop === 'NOT_EXPR' ? this.columnOf(list(bool.args)[0], scope) : undefined;
    const c = this.columnOf(node, scope) ?? negated;
    if (!c) return false;
    this.use(c.entry, { column: c.column, kind: 'eq', constant: `${negated ? 'NOT ' : ''}${quoteIdent(c.column)}`, inOr });
    return true;
  }

  /** `col <op> value` (or `value <op> col`, read from the column's side), IN, = ANY, BETWEEN, LIKE. */
  private comparison(e: Node, scope: Scope, inOr: boolean): void {
    const names = list(e.name);
    let operator = sval(names[names.length - 1]) ?? '';
    let left = child(e, 'lexpr');
    let right = child(e, 'rexpr');
    let c = this.columnOf(left, scope);
    if (!c && this.columnOf(right, scope) && e.kind === 'AEXPR_OP' && FLIP[operator]) {
      [left, right] = [right, left];
      operator = FLIP[operator]!;
      c = this.columnOf(left, scope);
    }
    if (!c) return;
    switch (e.kind) {
      case 'AEXPR_OP':
        return this.operator(c, operator, right, scope, inOr);
      case 'AEXPR_IN':
      case 'AEXPR_OP_ANY':
        if (operator === '=' && isValue(right)) this.use(c.entry, { column: c.column, kind: 'eq', inOr });
        return;
      case 'AEXPR_BETWEEN':
        if (isValue(right)) this.use(c.entry, { column: c.column, kind: 'range', inOr });
        return;
      case 'AEXPR_LIKE': {
        // Only a fixed prefix can use a B-tree (and only under the C collation or pattern_ops).
        const k = constantText(right);
        if (k && /^'[^%_]+%'$/.test(k)) this.use(c.entry, { column: c.column, kind: 'range', inOr });
        return;
      }
      default:
        return;
    }
  }

  /** A binary operator with the column on its left: a join, an equality, a range, containment or `<>`. */
  private operator(c: ScopedColumn, operator: string, right: Node | undefined, scope: Scope, inOr: boolean): void {
    const other = this.columnOf(right, scope);
    if (operator === '=' && other && other.entry !== c.entry) {
      this.use(c.entry, { column: c.column, kind: 'join', inOr });
      this.use(other.entry, { column: other.column, kind: 'join', inOr });
      return;
    }
    if (!isValue(right)) return;
    if (operator === '=') {
      // A literal on a state-like column (status = 'refunded') is a fixed part of the query and
      // can become a partial index predicate; on a high-cardinality column (customer_id = 42)
      // it is a parameter in all but name, and an index for one customer would be useless.
      const k = constantText(right);
      const stateLike = k !== undefined && this.tables.distinct(c.entry, c.column) <= PARTIAL_MAX_DISTINCT;
      this.use(c.entry, { column: c.column, kind: 'eq', inOr, ...(stateLike ? { constant: `${quoteIdent(c.column)} = ${k}` } : {}) });
    } else if (RANGE_OPS.has(operator)) {
      this.use(c.entry, { column: c.column, kind: 'range', inOr });
    } else if (CONTAIN_OPS.has(operator)) {
      // GIN's default operator classes cover jsonb and arrays.
      const info = this.tables.columns(c.entry)?.get(c.column);
      if (info && (info.type === 'jsonb' || info.category === 'A')) this.use(c.entry, { column: c.column, kind: 'contain', inOr });
    } else if (operator === '<>' || operator === '!=') {
      const k = constantText(right);
      if (k && !inOr) c.entry.usage.filters.push(`${quoteIdent(c.column)} <> ${k}`);
    }
  }

  /** Marks every column read under a node as referenced and analyzes nested subqueries. */
  /** Marks every column read under a node as referenced and analyzes nested subqueries. */
  private walk(node: unknown, scope: Scope): void {
    if (Array.isArray(node)) return node.forEach((n) => this.walk(n, scope));
    if (!isObj(node)) return;
    const ref = child(node, 'ColumnRef');
    if (ref) {
      const fields = list(ref.fields);
      if (fields.some((f) => 'A_Star' in f)) {
        const qualifier = sval(fields[0]);
        for (const e of scope.entries) if (e.kind === 'table' && (fields.length === 1 || e.alias === qualifier)) e.usage.referenced = null;
        return;
      }
      const r = this.resolveColumn(ref, scope);
      r?.entry.usage.referenced?.add(r.column);
      return;
    }
    const sub = child(node, 'SubLink');
    if (sub) {
      this.walk(child(sub, 'testexpr'), scope);
      const q = child(sub, 'subselect');
      if (q) this.statement(q, scope);
      return;
    }
    const select = child(node, 'SelectStmt');
    if (select) {
      this.select(select, scope);
      return;
    }
    for (const v of Object.values(node)) this.walk(v, scope);
  }
}
