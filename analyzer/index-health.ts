// Index health: the indexes that cost writes and disk without serving reads. Read in one catalog
// query (catalog/index-health.sql.ts) and judged here:
// - unused: never scanned since the statistics were reset, and not needed for anything but reads
//   (not backing a primary key, unique, exclusion or referenced foreign key constraint, not
//   unique at all, since a unique index enforces uniqueness whether or not it is scanned, not the
//   replica identity);
// - duplicate: the same definition as another index of the table but for its name (columns,
//   operator classes, collations, orders, expressions, INCLUDE, predicate, uniqueness);
// - redundant: a B-tree whose key columns lead another B-tree of the table in the same order, with
//   the same operator classes, orders and collations and the same predicate, whose INCLUDE columns
//   the other holds too, and that provides no uniqueness of its own;
// - invalid: the planner will not use it (a failed CREATE INDEX CONCURRENTLY).
// Of two duplicates the one kept is the one backing a constraint, else the most scanned, else the
// oldest; every other is listed.
import type { IndexHealth, IndexHealthEntry, IndexHealthKind } from '../shared/index-health';
import type { Gateway } from '../gateway/index';
import type { SchemaFilters } from '../shared/schema-filters';
import { listIndexFacts, readStatsReset, type IndexFactsRow } from './catalog/index-health.sql';

const qualified = (i: Pick<IndexFactsRow, 'schema' | 'name'>) => `${i.schema}.${i.name}`;

/** Reads and judges the indexes of the connected database, of the schemas the filters allow. */
export async function readIndexHealth(db: Gateway, now: Date = new Date(), filters?: SchemaFilters): Promise<IndexHealth> {
  const [facts, statsReset] = await Promise.all([listIndexFacts(db, filters), readStatsReset(db)]);
  return { statsReset, readAt: now.toISOString(), indexes: judgeIndexes(facts) };
}

/** Pure: the findings over every index of the database. */
export function judgeIndexes(facts: IndexFactsRow[]): IndexHealthEntry[] {
  const findings = new Map<IndexFactsRow, { kinds: Set<IndexHealthKind>; coveredBy: string | null; reasons: Map<IndexHealthKind, string> }>();
  const add = (index: IndexFactsRow, kind: IndexHealthKind, reason: string, coveredBy: string | null = null) => {
    let f = findings.get(index);
    if (!f) findings.set(index, (f = { kinds: new Set(), coveredBy: null, reasons: new Map() }));
    if (f.kinds.has(kind)) return;
    f.kinds.add(kind);
    f.reasons.set(kind, reason);
    f.coveredBy ??= coveredBy;
  };

  for (const index of facts) {
    if (!index.valid) {
      add(
        index,
        'invalid',
        index.ready
          ? 'Invalid: its build failed or is still running (CREATE INDEX CONCURRENTLY); every write maintains it but the planner never uses it.'
          : 'Not ready: its build did not finish; the planner never uses it.',
      );
    } else if (index.scans === 0 && !index.unique && !index.backsConstraint && !index.replicaIdentity) {
      const fk = servedForeignKey(index);
      add(
        index,
        'unused',
        `Never scanned since the statistics were reset.${fk ? ` It leads with the columns of foreign key ${fk}: without it, deleting or updating a referenced row scans ${index.table}.` : ''}`,
      );
    }
  }

  const byTable = new Map<string, IndexFactsRow[]>();
  for (const index of facts) {
    if (!index.valid) continue;
    const key = `${index.schema}.${index.table}`;
    byTable.set(key, [...(byTable.get(key) ?? []), index]);
  }
  for (const indexes of byTable.values()) {
    const groups = new Map<string, IndexFactsRow[]>();
    for (const index of indexes) {
      const signature = `${index.unique}|${index.body}`;
      groups.set(signature, [...(groups.get(signature) ?? []), index]);
    }
    for (const group of groups.values()) {
      if (group.length < 2) continue;
      const [kept, ...others] = [...group].sort(keepFirst);
      for (const other of others) {
        if (other.backsConstraint) continue; // dropping it would drop its constraint
        add(other, 'duplicate', `Same definition as ${qualified(kept!)}.`, qualified(kept!));
      }
    }
    for (const index of indexes) {
      if (findings.get(index)?.kinds.has('duplicate')) continue;
      const wider = indexes.find((other) => other !== index && isPrefixOf(index, other));
      if (wider) add(index, 'redundant', `Its key columns lead ${qualified(wider)}, which serves the same reads.`, qualified(wider));
    }
  }

  return facts.flatMap((index) => {
    const f = findings.get(index);
    if (!f) return [];
    const kinds = INDEX_KIND_ORDER.filter((k) => f.kinds.has(k));
    return [
      {
        schema: index.schema,
        table: index.table,
        name: index.name,
        kinds,
        coveredBy: f.coveredBy,
        reason: kinds.map((k) => f.reasons.get(k)).join(' '),
        bytes: index.bytes,
        scans: index.scans,
        definition: index.definition,
        dropStatement: index.dropStatement,
      },
    ];
  });
}

const INDEX_KIND_ORDER: IndexHealthKind[] = ['invalid', 'duplicate', 'redundant', 'unused'];

/** Of equal indexes, the one to keep sorts first. */
function keepFirst(a: IndexFactsRow, b: IndexFactsRow): number {
  return Number(b.backsConstraint) - Number(a.backsConstraint) || (b.scans ?? 0) - (a.scans ?? 0) || a.oid - b.oid;
}

/**
 * `index` is redundant with `other`: both B-trees on plain columns where `index` has them, its keys
 * lead `other`'s key for key, the same predicate, its INCLUDE columns among `other`'s, and nothing
 * of its own to enforce (not unique unless `other` is unique on exactly the same keys, no constraint).
 */
function isPrefixOf(index: IndexFactsRow, other: IndexFactsRow): boolean {
  if (index.method !== 'btree' || other.method !== 'btree') return false;
  if (index.backsConstraint || index.replicaIdentity) return false;
  if (index.predicate !== other.predicate) return false;
  if (index.keys.length > other.keys.length) return false;
  if (index.keys.some((k) => k.attnum === 0)) return false;
  const samePrefix = index.keys.every((k, n) => {
    const o = other.keys[n]!;
    return o.attnum === k.attnum && o.opclass === k.opclass && o.option === k.option && o.collation === k.collation;
  });
  if (!samePrefix) return false;
  if (index.unique && !(other.unique && other.keys.length === index.keys.length)) return false;
  const otherColumns = new Set([...other.keys.map((k) => k.attnum), ...other.include]);
  if (!index.include.every((c) => otherColumns.has(c))) return false;
  // Equal keys and INCLUDE both ways, yet not a duplicate (storage parameters differ): the newer one is the redundant one.
  if (index.keys.length === other.keys.length && other.include.every((c) => index.include.includes(c)) && index.unique === other.unique) {
    return index.oid > other.oid;
  }
  return true;
}

/** A foreign key of the table whose columns are the index's leading key columns, by name. */
function servedForeignKey(index: IndexFactsRow): string | undefined {
  const leading = index.keys.map((k) => k.attnum);
  return index.foreignKeys.find((fk) => fk.columns.length <= leading.length && fk.columns.every((c) => leading.slice(0, fk.columns.length).includes(c)))?.name;
}
