// Production's snapshot with a CI run's schema differences applied, so the shadow plans the run's
// queries on the schema the pull request would deploy. Objects are matched by schema-qualified
// name. Applied: tables, columns and indexes the run has and production lacks (created in the
// shadow), and production indexes the run's schema no longer has (removed). Everything else that
// differs (a column's type, a changed index under the same name, a dropped table or column, a view
// whose definition the run's schema does not carry) is reported in runNotes and left as production
// has it: a guess would make the verdict about a schema nobody wrote.
//
// Pure: no I/O. libpg_query must be loaded (loadParser in shared/sql-fingerprint.ts), because every
// statement built here is checked by the same filter that decides what of production's schema the
// shadow runs (shadow/ddl.ts): the run's schema is text someone else sent.
import { createHash } from 'node:crypto';
import { parseSync } from 'libpg-query';
import { groupBy } from '../shared/collections.js';
import type { RunSchema } from '../shared/run-schema.js';
import { nameKey, searchPathSchemas } from '../snapshot/names.js';
import { planShadowDdl } from '../shadow/ddl.js';
import type { GraphRelation, SnapshotGraph, SnapshotColumn, SnapshotIndex, Snapshot } from '../snapshot/types.js';
import { escapeIdentifier } from './sql-text.js';

export interface AppliedRunSchema {
  snapshot: Snapshot;
  /** '' when nothing was applied (the run plans exactly like production), else sha256 of the applied changes. */
  digest: string;
  /** Per table (schema.table), what the run changed that a finding on a query reading it should say. */
  tableNotes: Record<string, string[]>;
  /** Differences that were not applied, and why. */
  runNotes: string[];
  /** Production indexes (schema.name) the run's schema drops, removed from the shadow. */
  droppedIndexes: string[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const TABLE_KINDS = new Set(['r', 'p', 'm', 'f']);
const key = (schema: string, name: string) => `${schema}.${name}`;
const qualified = (schema: string, name: string) => `${escapeIdentifier(schema)}.${escapeIdentifier(name)}`;
/** pg_get_indexdef of a partitioned index says ON ONLY; CREATE INDEX without it builds the parts too. */
const normalizeDefinition = (sql: string) =>
  sql
    .replace(/ ON ONLY /, ' ON ')
    .replace(/\s+/g, ' ')
    .trim();

export function applyRunSchema(snapshot: Snapshot, run: RunSchema, baseline: RunSchema | null): AppliedRunSchema {
  // Every check below parses; without the parser each would fail and the run would be reported as unappliable.
  try {
    parseSync('SELECT 1');
  } catch (e) {
    throw new Error(`applyRunSchema needs the SQL parser loaded first (loadParser): ${(e as Error).message}`, { cause: e });
  }
  const a = startApplying(snapshot, run, baseline);
  createNewTables(a);
  addNewColumns(a);
  noteDroppedTables(a);
  createNewIndexes(a);
  noteRedefinedIndexes(a);
  dropRemovedIndexes(a);

  const { out, changes, tableNotes, runNotes, droppedIndexes } = a;
  const digest = changes.length
    ? createHash('sha256')
        .update([...changes].sort().join('\n'))
        .digest('hex')
    : '';
  if (!digest) return { snapshot, digest, tableNotes, runNotes, droppedIndexes };
  return { snapshot: out, digest, tableNotes, runNotes, droppedIndexes: droppedIndexes.sort() };
}

type RunTable = { schema: string; name: string; kind: RunSchema['tables'][number][2]; parent: string | null };

/** One application in progress: the inputs indexed by schema-qualified name, the copy being changed, and what was said about it. */
interface Applying {
  snapshot: Snapshot;
  run: RunSchema;
  out: Snapshot;
  graph: SnapshotGraph | undefined;
  /** schema.name of a relation to its key in the graph (the quoted name). */
  graphKey: Map<string, string>;
  path: string[];
  changes: string[];
  runNotes: string[];
  tableNotes: Record<string, string[]>;
  droppedIndexes: string[];
  /** Tables created in the shadow by this run. */
  created: Set<string>;
  prodTables: Map<string, Snapshot['relations'][number]>;
  prodViews: Set<string>;
  prodColumns: Map<string, SnapshotColumn>;
  prodColumnsByTable: Map<string, SnapshotColumn[]>;
  prodIndexes: Map<string, SnapshotIndex>;
  runTables: Map<string, RunTable>;
  runColumns: Map<string, RunSchema['columns']>;
  runSchemas: Set<string>;
  baseTables: Set<string> | null;
  baseColumns: Set<string> | null;
  baseIndexes: Set<string> | null;
}

function startApplying(snapshot: Snapshot, run: RunSchema, baseline: RunSchema | null): Applying {
  const out: Snapshot = {
    ...snapshot,
    ddl: [...snapshot.ddl],
    relations: [...snapshot.relations],
    indexes: [...snapshot.indexes],
    columns: [...snapshot.columns],
    runIndexes: [...(snapshot.runIndexes ?? [])],
  };
  const graph: SnapshotGraph | undefined = snapshot.graph && { ...snapshot.graph, relations: { ...snapshot.graph.relations } };
  if (graph) out.graph = graph;
  return {
    snapshot,
    run,
    out,
    graph,
    graphKey: new Map(Object.entries(graph?.relations ?? {}).map(([k, r]) => [key(r.schema, r.name), k])),
    path: searchPathSchemas(snapshot.searchPath),
    changes: [],
    runNotes: [],
    tableNotes: {},
    droppedIndexes: [],
    created: new Set(),
    prodTables: new Map(snapshot.relations.filter((r) => TABLE_KINDS.has(r.kind)).map((r) => [key(r.schema, r.name), r])),
    prodViews: new Set(
      snapshot.ddl
        .filter((d) => d.kind === 'view')
        .map((d) => splitQualified(d.name))
        .filter((n) => n !== undefined)
        .map((n) => key(n[0], n[1])),
    ),
    prodColumns: new Map(snapshot.columns.map((c) => [key(key(c.schema, c.table), c.name), c])),
    prodColumnsByTable: groupBy(snapshot.columns, (c) => key(c.schema, c.table)),
    prodIndexes: new Map(snapshot.indexes.map((i) => [key(i.schema, i.name), i])),
    runTables: new Map(run.tables.map(([schema, name, kind, parent]) => [key(schema, name), { schema, name, kind, parent }])),
    runColumns: groupBy(run.columns, (c) => key(c[0], c[1])),
    runSchemas: new Set(run.tables.map(([schema]) => schema)),
    baseTables: baseline ? new Set(baseline.tables.map(([s, n]) => key(s, n))) : null,
    baseColumns: baseline ? new Set(baseline.columns.map(([s, t, c]) => key(key(s, t), c))) : null,
    baseIndexes: baseline ? new Set(baseline.indexes.map(([s, , n]) => key(s, n))) : null,
  };
}

const note = (a: Applying, table: string, text: string) => (a.tableNotes[table] ??= []).push(text);

/**
 * A snapshot cut to some queries (scope.ts) holds only their relations: a run's table it lacks
 * is new only when production has none of that name where the queries look for it (scope).
 * Differences on relations the queries do not need are neither applied nor noted: the plans
 * of these queries cannot depend on them.
 */
function absent(a: Applying, schema: string, name: string): boolean {
  const scope = a.snapshot.scope;
  return !scope || scope.relations[nameKey({ schema, name })] === null || (scope.relations[nameKey({ name })] === null && a.path.includes(schema));
}

/** The user types (enums, domains, composites) a run's column type names, as the graph names them. */
function typesOf(a: Applying, type: string): string[] {
  const base = type
    .replace(/(\[\d*\])+$/, '')
    .replace(/\(.*\)$/, '')
    .trim();
  const parts = splitQualified(base);
  if (!parts) return [];
  // format_type names a type's schema when the type is not visible on the CI database's search_path.
  for (const schema of base.includes('.') ? [parts[0]] : a.path) {
    const hit = Object.entries(a.graph?.types ?? {}).find(([, t]) => t.schema === schema && t.name === parts[1]);
    if (hit) return [hit[0]];
  }
  return [];
}

/** A relation's graph entry, copied before it changes: the input snapshot stays as it was. */
function graphEntry(a: Applying, tableKey: string): GraphRelation | undefined {
  const k = a.graphKey.get(tableKey);
  if (!a.graph || k === undefined || !a.graph.relations[k]) return undefined;
  a.graph.relations[k] = { ...a.graph.relations[k]! };
  return a.graph.relations[k];
}

/** New tables: plain tables with the run's columns and PostgreSQL's defaults for a table never analyzed. */
function createNewTables(a: Applying): void {
  const { out, graph, runNotes } = a;
  for (const [name, t] of a.runTables) {
    if (a.prodTables.has(name) || a.prodViews.has(name)) continue;
    if (!absent(a, t.schema, t.name)) continue;
    if (t.kind === 'v') {
      runNotes.push(`view ${name} is new in this run: not created (the run's schema carries no view definitions)`);
      continue;
    }
    if (t.parent && a.prodTables.has(t.parent)) {
      runNotes.push(`${name} is a new partition of ${t.parent}: not attached (partition bounds are not in the run's schema)`);
      continue;
    }
    const columns = a.runColumns.get(name) ?? [];
    const bad = columns.find(([, , , type]) => !isPlainType(type));
    if (bad) {
      runNotes.push(`table ${name} is new in this run: not created (column ${bad[2]} has a type the shadow does not accept: ${bad[3].slice(0, 100)})`);
      continue;
    }
    const sql = `CREATE TABLE ${qualified(t.schema, t.name)} (${columns.map(([, , c, type, notNull]) => `${escapeIdentifier(c)} ${type}${notNull ? ' NOT NULL' : ''}`).join(', ')})`;
    if (!passesShadowFilter('table', name, sql)) {
      runNotes.push(`table ${name} is new in this run: not created (its definition does not pass the shadow's filter)`);
      continue;
    }
    out.ddl.push({ kind: 'table', name: qualified(t.schema, t.name), sql });
    if (graph) {
      const types = [...new Set(columns.flatMap(([, , , type]) => typesOf(a, type)))];
      graph.relations[qualified(t.schema, t.name)] = { schema: t.schema, name: t.name, kind: 'r', ...(types.length && { types }) };
      a.graphKey.set(name, qualified(t.schema, t.name));
    }
    // reltuples -1: never analyzed; the planner then assumes 10 pages of rows as wide as the columns.
    out.relations.push({ schema: t.schema, name: t.name, kind: 'r', relpages: 0, reltuples: -1, relallvisible: 0, blocks: 0 });
    for (const [, , c, type, notNull] of columns) out.columns.push(sourceColumn(t.schema, t.name, c, type, notNull));
    a.created.add(name);
    a.changes.push(`create table ${sql}`);
    note(a, name, `${name} is new in this run: no production statistics${t.kind === 'p' ? ' (planned as one table, without partitions)' : ''}`);
  }
}

/** Columns of tables production has: new ones added, changed or dropped ones reported. */
function addNewColumns(a: Applying): void {
  const { out, runNotes, graphKey } = a;
  for (const [name, t] of a.runTables) {
    const prod = a.prodTables.get(name);
    if (!prod || t.kind === 'v') continue;
    const columns = a.runColumns.get(name) ?? [];
    const parentColumns = new Set((t.parent ? (a.runColumns.get(t.parent) ?? []) : []).map(([, , c]) => c));
    for (const [schema, table, c, type, notNull] of columns) {
      const existing = a.prodColumns.get(key(name, c));
      if (existing) {
        if (normalizeType(existing.type) !== normalizeType(type))
          runNotes.push(`column ${name}.${c} is ${type} in this run, ${existing.type} in production: not changed`);
        continue;
      }
      // A partition's column comes from its parent's ADD COLUMN; PostgreSQL refuses one on the partition.
      if (parentColumns.has(c) && a.prodTables.has(t.parent!)) continue;
      // Added without NOT NULL: the shadow stores endpoint rows in production's tables, and a NOT
      // NULL column without statistics to take a value from would cost the table those rows.
      const sql = `ALTER TABLE ${qualified(schema, table)} ADD COLUMN ${escapeIdentifier(c)} ${type}`;
      if (!isPlainType(type) || !passesShadowFilter('column', `${name}.${c}`, sql)) {
        runNotes.push(`column ${name}.${c} is new in this run: not added (type the shadow does not accept: ${type.slice(0, 100)})`);
        continue;
      }
      const entry = graphEntry(a, name);
      out.ddl.push({ kind: 'column', name: `${qualified(schema, table)}.${escapeIdentifier(c)}`, sql, ...(graphKey.has(name) && { of: graphKey.get(name) }) });
      if (entry) for (const k of typesOf(a, type)) if (!(entry.types ?? []).includes(k)) entry.types = [...(entry.types ?? []), k];
      out.columns.push(sourceColumn(schema, table, c, type, notNull));
      a.changes.push(`add column ${sql}`);
      note(a, name, `${name}.${c} is new in this run: no production statistics`);
    }
    const runNames = new Set(columns.map(([, , c]) => c));
    for (const pc of a.prodColumnsByTable.get(name) ?? []) {
      if (runNames.has(pc.name)) continue;
      if (a.baseColumns && !a.baseColumns.has(key(name, pc.name))) continue;
      runNotes.push(`column ${name}.${pc.name} is dropped in this run: not applied (queries are planned with it)`);
    }
  }
}

/** Production tables the run's schema lacks: reported, never removed (queries still name them). */
function noteDroppedTables(a: Applying): void {
  for (const name of a.prodTables.keys()) {
    if (a.runTables.has(name)) continue;
    const schema = a.prodTables.get(name)!.schema;
    if (a.baseTables ? !a.baseTables.has(name) : !a.runSchemas.has(schema)) continue;
    a.runNotes.push(`table ${name} is dropped in this run: not applied (queries are planned with it)`);
  }
}

function createNewIndexes(a: Applying): void {
  const { out, runNotes, prodTables, created, graphKey } = a;
  const newIndexes = a.run.indexes.filter(([s, , n]) => !a.prodIndexes.has(key(s, n)));
  const newPartitioned = newIndexes.filter(([, , , def]) => / ON ONLY /.test(def));
  for (const [schema, table, name, definition] of newIndexes) {
    const tableKey = key(schema, table);
    const indexKey = key(schema, name);
    const part = partOf(a.runTables.get(tableKey)?.parent ?? null, definition, newPartitioned);
    if (part && (prodTables.has(part.table) || created.has(part.table))) {
      // Built by its parent's CREATE INDEX; named as the run names it (shadow/database.ts renames the parts).
      const parsed = parseIndex(definition, schema, table, name);
      if (parsed) out.indexes.push({ ...parsed, parent: part.name });
      continue;
    }
    if (!prodTables.has(tableKey) && !created.has(tableKey)) {
      // On a relation production has beyond the queries' part of the snapshot: nothing to say about it.
      if (!absent(a, schema, table)) continue;
      runNotes.push(`index ${indexKey} is new in this run: not created (its table ${tableKey} is neither in production nor created here)`);
      continue;
    }
    const parsed = parseIndex(definition, schema, table, name);
    const sql = normalizeDefinition(definition);
    if (!parsed || !passesShadowFilter('index', name, sql)) {
      runNotes.push(`index ${indexKey} is new in this run: not created (its definition is not one CREATE INDEX on ${tableKey}: ${definition.slice(0, 200)})`);
      continue;
    }
    out.ddl.push({ kind: 'index', name, sql, ...(graphKey.has(tableKey) && { of: graphKey.get(tableKey) }) });
    out.indexes.push(parsed);
    // An index on production's rows is sized like a candidate; on a new table it stays as built.
    if (prodTables.has(tableKey)) out.runIndexes!.push({ schema, name });
    a.changes.push(`create index ${sql}`);
    note(a, tableKey, `index ${indexKey} is new in this run${prodTables.has(tableKey) ? ': sized from production statistics' : ''}`);
  }
}

/** Indexes under the same name with another definition: reported, left as production has them. */
function noteRedefinedIndexes(a: Applying): void {
  for (const [schema, , name, definition] of a.run.indexes) {
    const prod = a.prodIndexes.get(key(schema, name));
    if (prod && normalizeDefinition(prod.definition) !== normalizeDefinition(definition)) {
      a.runNotes.push(
        `index ${key(schema, name)} is defined differently in this run: not changed (production: ${prod.definition.slice(0, 200)}; run: ${definition.slice(0, 200)})`,
      );
    }
  }
}

/**
 * Dropped indexes: in production, not in the run's schema, and in the baseline's (so an index
 * created by hand in production, never in migrations, is not lost by every run). Without a
 * baseline: those on tables the run's schema has.
 */
function dropRemovedIndexes(a: Applying): void {
  const runIndexKeys = new Set(a.run.indexes.map(([s, , n]) => key(s, n)));
  for (const idx of a.snapshot.indexes) {
    if (idx.parent) continue; // a part goes with its partitioned index
    const indexKey = key(idx.schema, idx.name);
    if (runIndexKeys.has(indexKey)) continue;
    if (a.baseIndexes ? !a.baseIndexes.has(indexKey) : !a.runTables.has(key(idx.schema, idx.table))) continue;
    const removed = dropIndex(a.out, idx);
    a.droppedIndexes.push(indexKey);
    a.changes.push(`drop index ${indexKey}${removed.length ? ` (${removed.join(', ')})` : ''}`);
    note(a, key(idx.schema, idx.table), `index ${indexKey} is dropped in this run`);
  }
}

/**
 * Removes an index, its partition parts, and the constraint it backs (with the foreign keys that
 * reference that constraint, which PostgreSQL would not let outlive it) from the copy.
 * Returns the constraints removed.
 */
export function dropIndex(out: Snapshot, idx: SnapshotIndex): string[] {
  const names = new Set([idx.name]);
  for (let grew = true; grew;) {
    grew = false;
    for (const i of out.indexes) {
      if (i.schema === idx.schema && i.parent && names.has(i.parent) && !names.has(i.name)) {
        names.add(i.name);
        grew = true;
      }
    }
  }
  out.indexes = out.indexes.filter((i) => !(i.schema === idx.schema && names.has(i.name)));
  out.relations = out.relations.filter((r) => !(['i', 'I'].includes(r.kind) && r.schema === idx.schema && names.has(r.name)));
  out.ddl = out.ddl.filter((d) => !(d.kind === 'index' && d.name === idx.name && normalizeDefinition(d.sql) === normalizeDefinition(idx.definition)));
  const removed: string[] = [];
  const constraint = out.ddl.find(
    (d) => d.kind === 'constraint' && splitQualified(d.name)?.[1] === idx.name && constraintOf(d.sql)?.table === key(idx.schema, idx.table),
  );
  if (constraint) {
    const def = constraintOf(constraint.sql)!;
    removed.push(`constraint ${idx.name}`);
    out.ddl = out.ddl.filter((d) => {
      if (d === constraint) return false;
      if (d.kind !== 'foreign key') return true;
      const fk = constraintOf(d.sql);
      const references =
        fk?.references === key(idx.schema, idx.table) && (fk.referencedColumns.length ? sameSet(fk.referencedColumns, def.columns) : def.primary);
      if (references) removed.push(`foreign key ${d.name}`);
      return !references;
    });
  }
  return removed;
}

interface ConstraintDef {
  table: string;
  primary: boolean;
  columns: string[];
  references: string | null;
  referencedColumns: string[];
}

/** What an `ALTER TABLE t ADD CONSTRAINT ...` entry of the snapshot declares. */
function constraintOf(sql: string): ConstraintDef | undefined {
  try {
    const stmt = obj(obj(obj(parseSync(sql).stmts?.[0]).stmt).AlterTableStmt);
    const rel = obj(stmt.relation);
    const c = obj(obj(obj(obj((stmt.cmds as unknown[])?.[0]).AlterTableCmd).def).Constraint);
    const names = (list: unknown) => ((list as unknown[]) ?? []).map((x) => String(obj(obj(x).String).sval));
    const pk = obj(c.pktable);
    return {
      table: key(String(rel.schemaname ?? 'public'), String(rel.relname)),
      primary: c.contype === 'CONSTR_PRIMARY',
      columns: names(c.keys),
      references: c.contype === 'CONSTR_FOREIGN' ? key(String(pk.schemaname ?? 'public'), String(pk.relname)) : null,
      referencedColumns: names(c.pk_attrs),
    };
  } catch {
    return undefined;
  }
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * A run index that is a partition's part of a new partitioned index of its parent table: the same
 * definition but for the names. Returns the parent's table and index.
 */
function partOf(parentTable: string | null, definition: string, partitioned: RunSchema['indexes']): { table: string; name: string } | undefined {
  if (!parentTable) return undefined;
  const body = (def: string) => def.replace(/^CREATE (UNIQUE )?INDEX \S+ ON (ONLY )?\S+ /, '');
  const match = partitioned.find(([s, t, , def]) => key(s, t) === parentTable && body(def) === body(definition));
  return match ? { table: parentTable, name: match[2] } : undefined;
}

/** The index as the advisor reads production's (keys, INCLUDE, predicate), when the definition is one CREATE INDEX of that name on that table. */
function parseIndex(definition: string, schema: string, table: string, name: string): SnapshotIndex | undefined {
  let stmts: unknown[];
  try {
    stmts = parseSync(definition).stmts ?? [];
  } catch {
    return undefined;
  }
  if (stmts.length !== 1) return undefined;
  const stmt = obj(obj(obj(stmts[0]).stmt).IndexStmt);
  const rel = obj(stmt.relation);
  if (stmt.idxname !== name || rel.relname !== table || (rel.schemaname ?? schema) !== schema) return undefined;
  const elems = (list: unknown) => ((list as unknown[]) ?? []).map((e) => obj(obj(e).IndexElem));
  const where = stmt.whereClause ? definition.slice(definition.lastIndexOf(' WHERE ') + ' WHERE '.length) : null;
  return {
    schema,
    table,
    name,
    am: String(stmt.accessMethod ?? 'btree'),
    keys: elems(stmt.indexParams).map((e) => (typeof e.name === 'string' ? e.name : null)),
    include: elems(stmt.indexIncludingParams).map((e) => String(e.name)),
    predicate: where,
    unique: Boolean(stmt.unique),
    parent: null,
    definition,
  };
}

/** One statement the shadow would run as given (not skipped, not rewritten). */
function passesShadowFilter(kind: string, name: string, sql: string): boolean {
  const planned = planShadowDdl([{ kind, name, sql }], []);
  return planned.skipped.length === 0 && planned.statements.length === 1 && planned.statements[0]!.sql === sql;
}

/**
 * A type as format_type prints it, and nothing else: parsed as the only column of a table, it must
 * be a bare column definition (no DEFAULT, constraint, COLLATE or generated expression smuggled in).
 */
function isPlainType(type: string): boolean {
  if (!type.trim() || /;/.test(type)) return false;
  try {
    const stmts = parseSync(`CREATE TABLE t (c ${type})`).stmts ?? [];
    if (stmts.length !== 1) return false;
    const elts = (obj(obj(obj(stmts[0]).stmt).CreateStmt).tableElts as unknown[]) ?? [];
    if (elts.length !== 1) return false;
    const col = obj(obj(elts[0]).ColumnDef);
    return Object.keys(col).every((k) => ['colname', 'typeName', 'is_local', 'location'].includes(k));
  } catch {
    return false;
  }
}

/** format_type output compared loosely: case and spacing only. */
const normalizeType = (type: string) => type.toLowerCase().replace(/\s+/g, ' ').trim();

/** A column as the snapshot lists production's; the category is what GIN candidates look at. */
function sourceColumn(schema: string, table: string, name: string, type: string, notNull: boolean): SnapshotColumn {
  const t = normalizeType(type);
  const category = t.endsWith('[]') ? 'A' : ['jsonb', 'json', 'hstore', 'tsvector'].includes(t) ? 'U' : t === 'text' || t.startsWith('character') ? 'S' : 'N';
  return { schema, table, name, type, category, notNull };
}

/** `"a"."b"` or `a.b` as quote_ident prints a qualified name: [schema, name]. */
export function splitQualified(text: string): [string, string] | undefined {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      let s = '';
      i++;
      while (i < text.length) {
        if (text[i] === '"' && text[i + 1] === '"') {
          s += '"';
          i += 2;
        } else if (text[i] === '"') {
          i++;
          break;
        } else s += text[i++];
      }
      parts.push(s);
    } else {
      const end = text.indexOf('.', i);
      parts.push(text.slice(i, end < 0 ? text.length : end));
      i = end < 0 ? text.length : end;
    }
    if (text[i] === '.') i++;
    else if (i < text.length) return undefined;
  }
  if (parts.length === 1) return ['public', parts[0]!];
  return parts.length === 2 ? [parts[0]!, parts[1]!] : undefined;
}
