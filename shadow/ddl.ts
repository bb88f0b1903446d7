// Which of production's schema the shadow rebuilds, and in what form. The planner needs tables,
// columns, types, indexes, partitioning, NOT NULL, keys and foreign keys; everything else the
// database's owner wrote is code, and the shadow runs none of it:
// - functions and procedures are recreated with their signature, volatility, strictness,
//   parallel safety, cost and rows, but a PL/pgSQL body that does nothing (RETURN NULL, RETURN;
//   or nothing for void, set-returning and OUT-parameter functions). Bodies must be inert because
//   the planner runs functions while planning: it folds IMMUTABLE calls on constants, evaluates
//   STABLE ones to estimate selectivity, and the endpoint rows and statistics pass through index
//   expressions and CHECKs. Parameter defaults become NULL: they are code too.
// - CHECK constraints (tables and domains) and column defaults are dropped.
// - triggers, rules, casts, operators, event triggers are never copied (nothing below creates them;
//   only the statement kinds listed are let through, each parsed: one statement per entry).
// - extensions only from an allow-list of those that bring types, operators, index methods and
//   functions queries use; never a procedural language, a foreign-data wrapper, dblink, a trigger
//   helper or an inspection tool.
// docs/analysis.md ("Limits") lists what this costs in plan fidelity.
import { parseSync } from 'libpg-query';
import { deparseSync } from 'pgsql-deparser';
import type { Snapshot } from '../snapshot/types.js';
import type { ShadowSession } from './session.js';

/**
 * Inspection tools every production database may have and no application query plans with: left
 * out without a warning, which would otherwise stand on every analysis of such a database.
 */
const INSPECTION_EXTENSIONS = new Set([
  'amcheck',
  'pageinspect',
  'pg_buffercache',
  'pg_freespacemap',
  'pg_prewarm',
  'pg_stat_statements',
  'pg_visibility',
  'pg_walinspect',
  'pgstattuple',
]);

/** Extensions whose types, operators, operator classes, index methods or functions queries may plan with. */
const ALLOWED_EXTENSIONS = new Set([
  'bloom',
  'btree_gin',
  'btree_gist',
  'citext',
  'cube',
  'dict_int',
  'dict_xsyn',
  'earthdistance',
  'fuzzystrmatch',
  'hstore',
  'intarray',
  'isn',
  'lo',
  'ltree',
  'pg_trgm',
  'pgcrypto',
  'seg',
  'tablefunc',
  'tsm_system_rows',
  'tsm_system_time',
  'unaccent',
  'uuid-ossp',
]);

export interface ShadowDdl {
  /** Schemas to create (by the superuser, owned by the planner role) before anything else. */
  schemas: string[];
  /** Allow-listed extensions, created by the superuser before the planner role runs anything. */
  extensions: { name: string; schema: string }[];
  /** Statements the planner role runs, in rounds (see database.ts). */
  statements: { kind: string; name: string; sql: string }[];
  /** What was not copied, for the analysis' warnings. CHECKs and defaults are dropped silently. */
  skipped: string[];
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v && typeof v === 'object' ? (v as Json) : {});
const sval = (v: unknown) => obj(obj(v).String).sval as string | undefined;

/** Constraint kinds the planner uses (keys, foreign keys, exclusion, NOT NULL); CHECK and DEFAULT are code. */
const KEPT_CONSTRAINTS = new Set([
  'CONSTR_NULL',
  'CONSTR_NOTNULL',
  'CONSTR_PRIMARY',
  'CONSTR_UNIQUE',
  'CONSTR_EXCLUSION',
  'CONSTR_FOREIGN',
  'CONSTR_GENERATED',
  'CONSTR_IDENTITY',
  'CONSTR_ATTR_DEFERRABLE',
  'CONSTR_ATTR_NOT_DEFERRABLE',
  'CONSTR_ATTR_DEFERRED',
  'CONSTR_ATTR_IMMEDIATE',
  'CONSTR_ATTR_ENFORCED',
  'CONSTR_ATTR_NOT_ENFORCED',
]);
const kept = (c: unknown) => KEPT_CONSTRAINTS.has(String(obj(obj(c).Constraint).contype));

const STUB_OPTIONS = new Set(['volatility', 'strict', 'parallel', 'cost', 'rows']);

/** CREATE FUNCTION/PROCEDURE with the same signature and planner-visible properties, and an inert body. */
function stubFunction(stmt: Json): string {
  const s = structuredClone(stmt);
  const params = ((s.parameters as unknown[]) ?? []).map(obj);
  for (const p of params) {
    const fp = obj(p.FunctionParameter);
    if (fp.defexpr) fp.defexpr = { A_Const: { isnull: true } };
  }
  const ret = obj(s.returnType);
  const retName = ((ret.names as unknown[]) ?? []).map(sval).at(-1);
  const outputs = params.some((p) => ['FUNC_PARAM_OUT', 'FUNC_PARAM_INOUT', 'FUNC_PARAM_TABLE'].includes(String(obj(p.FunctionParameter).mode)));
  const body =
    s.is_procedure || retName === 'void' || retName === 'event_trigger' ? 'BEGIN END' : ret.setof || outputs ? 'BEGIN RETURN; END' : 'BEGIN RETURN NULL; END';
  s.options = [
    ...((s.options as unknown[]) ?? []).filter((o) => STUB_OPTIONS.has(String(obj(obj(o).DefElem).defname))),
    { DefElem: { defname: 'language', arg: { String: { sval: 'plpgsql' } }, defaction: 'DEFELEM_UNSPEC' } },
    { DefElem: { defname: 'as', arg: { List: { items: [{ String: { sval: body } }] } }, defaction: 'DEFELEM_UNSPEC' } },
  ];
  delete s.sql_body;
  return deparseSync({ version: 0, stmts: [{ stmt: { CreateFunctionStmt: s } }] } as never);
}

/** The same statement without its CHECK constraints and defaults, or undefined when it had none. */
function withoutCode(type: 'CreateStmt' | 'CreateDomainStmt', stmt: Json): string | undefined {
  const s = structuredClone(stmt);
  let changed = false;
  const filter = (list: unknown) => {
    const before = (list as unknown[]) ?? [];
    const after = before.filter((c) => !obj(c).Constraint || kept(c));
    if (after.length !== before.length) changed = true;
    return after;
  };
  if (type === 'CreateDomainStmt') s.constraints = filter(s.constraints);
  else {
    s.tableElts = filter(s.tableElts);
    for (const e of (s.tableElts as unknown[]) ?? []) {
      const col = obj(obj(e).ColumnDef);
      if (col.constraints) col.constraints = filter(col.constraints);
      if (col.raw_default || col.cooked_default) {
        delete col.raw_default;
        delete col.cooked_default;
        changed = true;
      }
    }
  }
  return changed ? deparseSync({ version: 0, stmts: [{ stmt: { [type]: s } }] } as never) : undefined;
}

const ALTER_TABLE_KEPT = new Set(['AT_AttachPartition', 'AT_AddInherit', 'AT_AddConstraint', 'AT_AddColumn']);

/**
 * ALTER TABLE ... ADD COLUMN (a run's new column, advisor/run-schema.ts) without the column's
 * default and CHECKs, as CREATE TABLE's columns are copied; undefined when it had none.
 */
function addColumnWithoutCode(stmt: Json): string | undefined {
  const s = structuredClone(stmt);
  let changed = false;
  for (const c of ((s.cmds as unknown[]) ?? []).map((x) => obj(obj(x).AlterTableCmd))) {
    if (c.subtype !== 'AT_AddColumn') continue;
    const col = obj(obj(c.def).ColumnDef);
    if (col.constraints) {
      const before = col.constraints as unknown[];
      col.constraints = before.filter(kept);
      if ((col.constraints as unknown[]).length !== before.length) changed = true;
    }
    if (col.raw_default || col.cooked_default) {
      delete col.raw_default;
      delete col.cooked_default;
      changed = true;
    }
  }
  return changed ? deparseSync({ version: 0, stmts: [{ stmt: { AlterTableStmt: s } }] } as never) : undefined;
}

/** Sorts the snapshot's DDL into what the superuser creates, what the planner runs, and what is left out. */
export function planShadowDdl(ddl: Snapshot['ddl'], reservedSchemas: string[]): ShadowDdl {
  const out: ShadowDdl = { schemas: [], extensions: [], statements: [], skipped: [] };
  for (const d of ddl) planEntry(d, reservedSchemas, out);
  return out;
}

/** How long planShadowDdlInTurns holds the event loop at most before letting others in. */
const TURN_MS = 20;

/**
 * planShadowDdl, a slice of entries at a time with the event loop let go between slices: a whole
 * schema is tens of thousands of entries, each parsed, which in one go would hold every other
 * request for seconds.
 */
export async function planShadowDdlInTurns(ddl: Snapshot['ddl'], reservedSchemas: string[]): Promise<ShadowDdl> {
  const out: ShadowDdl = { schemas: [], extensions: [], statements: [], skipped: [] };
  let turn = performance.now();
  for (const d of ddl) {
    planEntry(d, reservedSchemas, out);
    if (performance.now() - turn > TURN_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
  }
  return out;
}

function planEntry(d: Snapshot['ddl'][number], reservedSchemas: string[], out: ShadowDdl): void {
  {
    const skip = (why: string) => out.skipped.push(`not copied (${d.kind} ${d.name}): ${why}`);
    let stmts: Json[];
    try {
      stmts = (parseSync(d.sql).stmts ?? []).map((s) => obj(obj(s).stmt));
    } catch (e) {
      skip((e as Error).message);
      return;
    }
    if (stmts.length !== 1) {
      skip(`${stmts.length} statements in one entry`);
      return;
    }
    const [type, body] = Object.entries(stmts[0]!)[0] ?? ['none', {}];
    const stmt = obj(body);
    const run = (sql = d.sql) => out.statements.push({ kind: d.kind, name: d.name, sql });
    try {
      switch (type) {
        case 'CreateSchemaStmt': {
          const name = String(stmt.schemaname ?? '');
          if (stmt.schemaElts || stmt.authrole || !name) skip('only a plain CREATE SCHEMA is copied');
          else if (reservedSchemas.includes(name) || name.startsWith('pg_')) skip('schema name reserved by the shadow');
          else out.schemas.push(name);
          break;
        }
        case 'CreateExtensionStmt': {
          const name = String(stmt.extname ?? '');
          const schemaOpt = ((stmt.options as unknown[]) ?? []).map((o) => obj(obj(o).DefElem)).find((o) => o.defname === 'schema');
          const schema = sval(schemaOpt?.arg) ?? 'public';
          if (INSPECTION_EXTENSIONS.has(name)) break;
          if (!ALLOWED_EXTENSIONS.has(name)) skip('extension not on the shadow allow-list (only types, operators, index methods and functions queries use)');
          else out.extensions.push({ name, schema });
          break;
        }
        case 'CreateFunctionStmt':
          run(stubFunction(stmt));
          break;
        case 'CreateStmt':
        case 'CreateDomainStmt':
          run(withoutCode(type, stmt));
          break;
        case 'AlterTableStmt': {
          const cmds = ((stmt.cmds as unknown[]) ?? []).map((c) => obj(obj(c).AlterTableCmd));
          if (!cmds.every((c) => ALTER_TABLE_KEPT.has(String(c.subtype)))) skip('only ATTACH PARTITION, INHERIT, ADD CONSTRAINT and ADD COLUMN are copied');
          // CHECK constraints are code; dropped on purpose, not worth a warning
          else if (!cmds.some((c) => c.subtype === 'AT_AddConstraint' && !kept(c.def))) run(addColumnWithoutCode(stmt));
          break;
        }
        case 'CompositeTypeStmt':
        case 'CreateEnumStmt':
        case 'IndexStmt':
        case 'ViewStmt':
          run();
          break;
        case 'DefineStmt':
          if (stmt.kind === 'OBJECT_AGGREGATE') run();
          else skip('only aggregates are copied among CREATE TYPE/OPERATOR/... definitions');
          break;
        default:
          skip(`${type} is not copied`);
      }
    } catch (e) {
      skip((e as Error).message);
    }
  }
}

/**
 * Drops what a rebuilt statement could still carry that runs code on data: CHECK constraints of
 * tables and domains, column defaults, triggers and rules other than a view's own. Nothing above
 * creates them; this keeps it true whatever the statements held. Runs as the planner role, who
 * owns every object.
 */
export async function dropCode(session: ShadowSession): Promise<void> {
  const userSchema = `n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast') AND n.nspname NOT LIKE 'pg\\_%'`;
  const r = await session.query<{ sql: string }>(
    `SELECT pg_catalog.format('ALTER TABLE %I.%I DROP CONSTRAINT %I', n.nspname, c.relname, k.conname) AS sql
       FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_class c ON c.oid = k.conrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE k.contype = 'c' AND k.conislocal AND ${userSchema}
     UNION ALL
     SELECT pg_catalog.format('ALTER DOMAIN %I.%I DROP CONSTRAINT %I', n.nspname, t.typname, k.conname)
       FROM pg_catalog.pg_constraint k JOIN pg_catalog.pg_type t ON t.oid = k.contypid JOIN pg_catalog.pg_namespace n ON n.oid = t.typnamespace
      WHERE k.contype = 'c' AND ${userSchema}
     UNION ALL
     SELECT pg_catalog.format('ALTER TABLE %I.%I ALTER COLUMN %I DROP DEFAULT', n.nspname, c.relname, a.attname)
       FROM pg_catalog.pg_attrdef d JOIN pg_catalog.pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum
       JOIN pg_catalog.pg_class c ON c.oid = d.adrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE a.attgenerated = '' AND ${userSchema}
     UNION ALL
     SELECT pg_catalog.format('DROP TRIGGER %I ON %I.%I', g.tgname, n.nspname, c.relname)
       FROM pg_catalog.pg_trigger g JOIN pg_catalog.pg_class c ON c.oid = g.tgrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE NOT g.tgisinternal AND ${userSchema}
     UNION ALL
     SELECT pg_catalog.format('DROP RULE %I ON %I.%I', w.rulename, n.nspname, c.relname)
       FROM pg_catalog.pg_rewrite w JOIN pg_catalog.pg_class c ON c.oid = w.ev_class JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE w.rulename <> '_RETURN' AND ${userSchema}`,
  );
  for (const { sql } of r.rows) await session.query(sql).catch(() => undefined);
}
