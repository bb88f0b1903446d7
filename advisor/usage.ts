// How a query uses the columns of each table it names, read from PostgreSQL's own parse tree
// (libpg-query): which columns are compared with a value (equality or range), joined to another
// table, sorted or grouped on, tested for containment (jsonb/array), fixed by a constant (a
// partial-index predicate), or only read. candidates.ts turns these usages into indexes to try.
import { parseSync } from 'libpg-query';
import type { Catalog, TableName } from './catalog.js';
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
    const names = list(typeName?.names).map(sval).filter((s): s is string => !!s && s !== 'pg_catalog');
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

interface ScopeEntry extends TableName {
  alias: string;
  usage: TableUsage;
}

interface Scope {
  entries: ScopeEntry[];
  parent?: Scope;
  ctes: Set<string>;
}

/** A column of a table in scope. */
interface ScopedColumn {
  entry: ScopeEntry;
  column: string;
}

/** `$1 < col` reads as `col > $1`: operators as seen from the column's side. */
const FLIP: Record<string, string> = { '<': '>', '>': '<', '<=': '>=', '>=': '<=', '=': '=', '@>': '<@', '<@': '@>', '&&': '&&' };
const RANGE_OPS = new Set(['<', '>', '<=', '>=']);
const CONTAIN_OPS = new Set(['@>', '&&', '?', '?|', '?&']);

/** Collects, per table reference, how a statement (and its subqueries) uses columns. */
export class UsageCollector {
  readonly usages: TableUsage[] = [];
  constructor(private readonly catalog: Catalog) {}

  collect(sql: string): TableUsage[] {
    const tree = parseSync(sql) as { stmts?: { stmt?: Node }[] };
    for (const s of tree.stmts ?? []) if (s.stmt) this.statement(s.stmt, undefined);
    return this.usages;
  }

  private statement(stmt: Node, parent: Scope | undefined): void {
    const select = child(stmt, 'SelectStmt');
    if (select) return this.select(select, parent);
    // UPDATE/DELETE: their WHERE finds rows like a SELECT's does.
    const dml = child(stmt, 'UpdateStmt') ?? child(stmt, 'DeleteStmt');
    if (dml) {
      const scope: Scope = { entries: [], parent, ctes: new Set() };
      const rel = child(dml, 'relation');
      if (rel) this.rangeVar(rel, scope);
      for (const f of [...list(dml.fromClause), ...list(dml.usingClause)]) this.fromItem(f, scope);
      this.conjuncts(child(dml, 'whereClause'), scope, false);
      return;
    }
    this.walk(stmt, parent ?? { entries: [], ctes: new Set() });
  }

  private select(select: Node, parent: Scope | undefined): void {
    const scope: Scope = { entries: [], parent, ctes: new Set(parent?.ctes ?? []) };
    const withClause = child(select, 'withClause');
    for (const cte of list(withClause?.ctes)) {
      const c = child(cte, 'CommonTableExpr');
      if (!c) continue;
      scope.ctes.add(String(c.ctename));
      const q = child(c, 'ctequery');
      if (q) this.statement(q, parent);
    }
    // UNION and friends: each arm is its own SELECT.
    const larg = child(select, 'larg');
    const rarg = child(select, 'rarg');
    if (larg || rarg) {
      if (larg) this.select(larg, scope);
      if (rarg) this.select(rarg, scope);
      return;
    }
    for (const f of list(select.fromClause)) this.fromItem(f, scope);
    this.conjuncts(child(select, 'whereClause'), scope, false);
    for (const t of list(select.targetList)) this.walk(t, scope);
    this.walk(child(select, 'havingClause'), scope);
    const sortCols = this.columnList(list(select.sortClause).map((s) => child(s, 'SortBy')?.node as Node | undefined), scope);
    if (sortCols) sortCols.entry.usage.orderBy = sortCols.columns;
    const groupCols = this.columnList(list(select.groupClause), scope);
    if (groupCols) groupCols.entry.usage.groupBy = groupCols.columns;
    for (const s of list(select.sortClause)) this.walk(s, scope);
    for (const g of list(select.groupClause)) this.walk(g, scope);
  }

  /** The columns of a list when all are plain columns of one table (a sort an index can give). */
  private columnList(nodes: (Node | undefined)[], scope: Scope): { entry: ScopeEntry; columns: string[] } | undefined {
    if (nodes.length === 0) return undefined;
    let entry: ScopeEntry | undefined;
    const columns: string[] = [];
    for (const n of nodes) {
      const r = this.columnOf(n, scope);
      if (!r || (entry && r.entry !== entry)) return undefined;
      entry = r.entry;
      columns.push(r.column);
    }
    return entry ? { entry, columns } : undefined;
  }

  private rangeVar(rv: Node, scope: Scope): ScopeEntry | undefined {
    const name = String(rv.relname);
    const schema = rv.schemaname as string | undefined;
    const alias = (child(rv, 'alias')?.aliasname as string | undefined) ?? name;
    if (!schema && scope.ctes.has(name)) return undefined;
    const table = this.catalog.resolve(schema, name);
    if (!table) return undefined;
    const usage: TableUsage = { ...table, uses: [], filters: [], orderBy: [], groupBy: [], referenced: new Set() };
    this.usages.push(usage);
    const entry = { ...table, alias, usage };
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
        for (const e of [...left, ...right]) if (this.catalog.columns(e)?.has(col)) this.use(e, { column: col, kind: 'join' });
      }
      // Conditions of an outer join's ON still drive index choice for the inner side.
      this.conjuncts(child(join, 'quals'), scope, false);
      return [...left, ...right];
    }
    const sub = child(item, 'RangeSubselect');
    if (sub) {
      const q = child(sub, 'subquery');
      if (q) this.statement(q, sub.lateral ? scope : scope.parent);
      return [];
    }
    this.walk(item, scope);
    return [];
  }

  private resolveColumn(ref: Node, scope: Scope): ScopedColumn | undefined {
    const fields = list(ref.fields).map(sval);
    if (fields.some((f) => f === undefined)) return undefined; // `*` or `t.*`
    const names = fields as string[];
    const column = names[names.length - 1]!;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      if (names.length === 1) {
        const matches = s.entries.filter((e) => this.catalog.columns(e)?.has(column));
        if (matches.length === 1) return { entry: matches[0]!, column };
        if (matches.length > 1) return undefined;
      } else {
        const qualifier = names[names.length - 2]!;
        const e = s.entries.find((x) => x.alias === qualifier && (names.length < 3 || x.schema === names[names.length - 3]));
        if (e) return this.catalog.columns(e)?.has(column) ? { entry: e, column } : undefined;
      }
    }
    return undefined;
  }

  /** The table column a node is, when it is a plain column reference. */
  private columnOf(node: Node | undefined, scope: Scope): ScopedColumn | undefined {
    const ref = node && child(node, 'ColumnRef');
    return ref ? this.resolveColumn(ref, scope) : undefined;
  }

  private use(entry: ScopeEntry, use: ColumnUse): void {
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
      const stateLike = k !== undefined && this.catalog.distinct(c.entry, c.column) <= PARTIAL_MAX_DISTINCT;
      this.use(c.entry, { column: c.column, kind: 'eq', inOr, ...(stateLike ? { constant: `${quoteIdent(c.column)} = ${k}` } : {}) });
    } else if (RANGE_OPS.has(operator)) {
      this.use(c.entry, { column: c.column, kind: 'range', inOr });
    } else if (CONTAIN_OPS.has(operator)) {
      // GIN's default operator classes cover jsonb and arrays.
      const info = this.catalog.columns(c.entry)?.get(c.column);
      if (info && (info.type === 'jsonb' || info.category === 'A')) this.use(c.entry, { column: c.column, kind: 'contain', inOr });
    } else if (operator === '<>' || operator === '!=') {
      const k = constantText(right);
      if (k && !inOr) c.entry.usage.filters.push(`${quoteIdent(c.column)} <> ${k}`);
    }
  }

  /** Marks every column read under a node as referenced and analyzes nested subqueries. */
  private walk(node: unknown, scope: Scope): void {
    if (Array.isArray(node)) return node.forEach((n) => this.walk(n, scope));
    if (!isObj(node)) return;
    const ref = child(node, 'ColumnRef');
    if (ref) {
      const fields = list(ref.fields);
      if (fields.some((f) => 'A_Star' in f)) {
        const qualifier = sval(fields[0]);
        for (const e of scope.entries) if (fields.length === 1 || e.alias === qualifier) e.usage.referenced = null;
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
    if (select) return this.select(select, scope);
    for (const v of Object.values(node)) this.walk(v, scope);
  }
}
