// The app's own store. Timestamps are timestamptz and leave the API as ISO 8601 UTC.
import { sql } from 'drizzle-orm';
import { bigint, boolean, doublePrecision, foreignKey, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import type { ChoiceStop, IndexRecommendation, Recommendation, SavingPoint } from '../../shared/analysis';
import type { CallSite } from '../../shared/call-sites';
import type { DropEffect, IndexHealth } from '../../shared/index-health';
import type { PlanNode } from '../../shared/plan';
import type { RunSchema } from '../../shared/run-schema';

const createdAt = () => timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow();

export const environments = pgTable(
  'environments',
  {
    id: text('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    // The CI verdict policy as stored; read through policySchema.parse so '{}' (and any field added
    // later) reads as the defaults.
    policy: jsonb('policy')
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'::jsonb`),
    // Seconds between production history readings: null is the server's SNAPSHOT_INTERVAL_SECONDS, 0 is off.
    snapshotIntervalSeconds: integer('snapshot_interval_seconds'),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('environments_slug_key').on(t.slug)],
);

export const connections = pgTable(
  'connections',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    label: text('label').notNull(),
    role: text('role', { enum: ['production', 'staging', 'ci', 'other'] })
      .notNull()
      .default('other'),
    // AES-256-GCM ciphertext (server/secrets.ts); the plain string is never stored.
    connectionStringEncrypted: text('connection_string_encrypted').notNull(),
    // Kept beside the ciphertext so listing an environment needs no decryption.
    maskedConnectionString: text('masked_connection_string').notNull(),
    // Schema filters (shared/schema-filters.ts): glob patterns of the schemas querytrail reads
    // through this connection; empty include means every schema.
    includeSchemas: text('include_schemas')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    excludeSchemas: text('exclude_schemas')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    createdAt: createdAt(),
  },
  (t) => [index('connections_environment_idx').on(t.environmentId, t.createdAt)],
);

export const repoLinks = pgTable(
  'repo_links',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    repo: text('repo').notNull(),
    // The CI issuer's id of the repository (GitHub's repository_id claim), kept from the first run
    // posted with a CI ID token: a repository deleted and made again under the same name by someone
    // else has another id, and its tokens are refused until the link is made again.
    ciRepositoryId: text('ci_repository_id'),
    createdAt: createdAt(),
  },
  // GitHub treats owner/name case-insensitively, so one repository has one home whatever its spelling.
  (t) => [uniqueIndex('repo_links_repo_key').on(sql`lower(${t.repo})`), index('repo_links_environment_idx').on(t.environmentId)],
);

export const catalogQueries = pgTable(
  'catalog_queries',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    query: text('query').notNull(),
    formattedQuery: text('formatted_query').notNull(),
    firstSeenAt: timestamp('first_seen_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastSeenSource: text('last_seen_source', { enum: ['ci', 'production', 'manual'] }).notNull(),
    ciRunCount: integer('ci_run_count').notNull().default(0),
    productionCalls: bigint('production_calls', { mode: 'number' }),
    productionMeanTimeMs: doublePrecision('production_mean_time_ms'),
    // The latest analysis' cost and recommendation count, copied from query_analyses by its triggers
    // (migration 0009) so the list reads a page from one index without a lookup per row.
    cost: doublePrecision('cost'),
    recommendationCount: integer('recommendation_count'),
    // Where the query comes from (its comments' tags, shared/call-sites.ts): the latest sightings first, bounded.
    callSites: jsonb('call_sites')
      .$type<CallSite[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('catalog_queries_environment_hash_key').on(t.environmentId, t.hash),
    // The list's order (most recently seen first, newest id first among equals), with and without
    // the source filter, so a page is read from an index instead of sorting the whole catalog.
    // (NULLS FIRST as a plain DESC sorts: drizzle's desc() in an index would say NULLS LAST and not match)
    index('catalog_queries_recent_idx').on(t.environmentId, t.lastSeenAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
    index('catalog_queries_source_recent_idx').on(t.environmentId, t.lastSeenSource, t.lastSeenAt.desc().nullsFirst(), t.id.desc().nullsFirst()),
  ],
);

/**
 * How many catalog entries each environment has per source, as rows of signed changes that
 * triggers on catalog_queries append (migration 0005) and the list folds (catalog/counts.ts): the
 * list's total without counting the catalog, and without a counter row every write would wait on.
 */
export const catalogCounts = pgTable(
  'catalog_counts',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    source: text('source', { enum: ['ci', 'production', 'manual'] }).notNull(),
    n: integer('n').notNull(),
  },
  (t) => [index('catalog_counts_environment_idx').on(t.environmentId, t.source)],
);

export const ciRuns = pgTable(
  'ci_runs',
  {
    id: text('id').primaryKey(),
    repo: text('repo').notNull(),
    runId: text('run_id').notNull(),
    // A run keeps its environment for life; deleting the environment leaves the run untagged.
    environmentId: text('environment_id').references(() => environments.id, { onDelete: 'set null' }),
    branch: text('branch'),
    commitSha: text('commit_sha'),
    pullRequest: integer('pull_request'),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }),
    queryCount: integer('query_count').notNull().default(0),
    newQueryCount: integer('new_query_count').notNull().default(0),
    // Queries of the request that could not be catalogued, kept so a repeated post answers the same.
    rejected: jsonb('rejected')
      .$type<{ index: number; reason: string }[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('ci_runs_repo_run_key').on(sql`lower(${t.repo})`, t.runId),
    index('ci_runs_recent_idx').on(t.createdAt.desc(), t.id),
    index('ci_runs_environment_recent_idx').on(t.environmentId, t.createdAt.desc(), t.id),
  ],
);

export const ciRunQueries = pgTable(
  'ci_run_queries',
  {
    runId: text('run_id')
      .notNull()
      .references(() => ciRuns.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    query: text('query').notNull(),
    formattedQuery: text('formatted_query').notNull(),
    calls: bigint('calls', { mode: 'number' }),
    meanTimeMs: doublePrecision('mean_time_ms'),
    // The query's estimated production cost and recommendation count as known when the run was
    // stored (or at the environment's next analysis): kept per run so runs can be compared.
    cost: doublePrecision('cost'),
    recommendationCount: integer('recommendation_count'),
    // The call sites of the query's texts in this run (shared/call-sites.ts), bounded.
    callSites: jsonb('call_sites')
      .$type<CallSite[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
  },
  (t) => [primaryKey({ columns: [t.runId, t.hash] })],
);

/** One "Analyze" of an environment: a background job over its whole catalog. */
export const analysisRuns = pgTable(
  'analysis_runs',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['running', 'done', 'failed'] }).notNull(),
    phase: text('phase').notNull().default('queued'),
    done: integer('done').notNull().default(0),
    total: integer('total').notNull().default(0),
    queryCount: integer('query_count').notNull().default(0),
    connectionLabel: text('connection_label').notNull(),
    error: text('error'),
    warnings: jsonb('warnings')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    // Every recommended index once, ranked by total time saved.
    indexes: jsonb('indexes')
      .$type<IndexRecommendation[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    // The workload's cost after each step of the choice, and where and why it stopped (advisor/knee.ts).
    savingCurve: jsonb('saving_curve').$type<SavingPoint[]>(),
    stopReason: jsonb('stop_reason').$type<ChoiceStop>(),
    // Production's index health when the analysis ran, with each listed index's drop effect.
    indexHealth: jsonb('index_health').$type<IndexHealth>(),
    // A what-if analysis: the indexes (schema.name) it planned without, and the queries that lost.
    hiddenIndexes: jsonb('hidden_indexes')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    hiddenEffect: jsonb('hidden_effect').$type<DropEffect>(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    finishedAt: timestamp('finished_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('analysis_runs_environment_idx').on(t.environmentId, t.startedAt.desc()),
    // at most one analysis runs per environment: a second "Analyze" joins the running one
    uniqueIndex('analysis_runs_one_running_key')
      .on(t.environmentId)
      .where(sql`status = 'running'`),
  ],
);

/** The latest analysis of each catalog query: its production plan, cost and recommendations. */
export const queryAnalyses = pgTable(
  'query_analyses',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    analysisId: text('analysis_id')
      .notNull()
      .references(() => analysisRuns.id, { onDelete: 'cascade' }),
    cost: doublePrecision('cost'),
    planShape: text('plan_shape'),
    plan: jsonb('plan').$type<PlanNode>(),
    planAfter: jsonb('plan_after').$type<PlanNode>(),
    recommendations: jsonb('recommendations')
      .$type<Recommendation[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    recommendationCount: integer('recommendation_count').notNull().default(0),
    // Best total saving among the recommendations, for ranking the catalog.
    totalSaved: doublePrecision('total_saved'),
    error: text('error'),
    // What the plan could not take from production (a table whose column statistics the role may not read).
    warnings: jsonb('warnings')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    analyzedAt: timestamp('analyzed_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.hash] })],
);

/**
 * A query whose verdict findings were accepted: they stay listed but stop counting toward the
 * status until the query's cost moves by more than the policy's percentage from `cost`.
 */
export const queryAcknowledgements = pgTable(
  'query_acknowledgements',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    note: text('note'),
    cost: doublePrecision('cost'),
    acknowledgedAt: timestamp('acknowledged_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    // who acknowledged: a person's email, a token's name, or "local" in single-user mode
    acknowledgedBy: text('acknowledged_by'),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.hash] })],
);

/** Production's schema and statistics as read at one moment: what CI runs are planned against. */
export const productionSnapshots = pgTable(
  'production_snapshots',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    connectionId: text('connection_id').notNull(),
    readAt: timestamp('read_at', { withTimezone: true, mode: 'date' }).notNull(),
    // sha256 of the snapshot's JSON
    digest: text('digest').notNull(),
    // the advisor's Snapshot
    snapshot: jsonb('snapshot').$type<unknown>().notNull(),
  },
  (t) => [index('production_snapshots_environment_idx').on(t.environmentId, t.readAt.desc())],
);

/**
 * The plan cache: one query planned on one snapshot with one set of schema differences applied
 * (`schema_digest` '' for production's own schema), so a query is never planned twice against it.
 */
export const queryPlans = pgTable(
  'query_plans',
  {
    environmentId: text('environment_id').notNull(),
    snapshotId: text('snapshot_id')
      .notNull()
      .references(() => productionSnapshots.id, { onDelete: 'cascade' }),
    schemaDigest: text('schema_digest').notNull(),
    hash: text('hash').notNull(),
    cost: doublePrecision('cost'),
    planShape: text('plan_shape'),
    plan: jsonb('plan').$type<PlanNode>(),
    planAfter: jsonb('plan_after').$type<PlanNode>(),
    // schema-qualified names, from the plan without recommendations applied
    indexesUsed: jsonb('indexes_used')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    tablesUsed: jsonb('tables_used')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    recommendations: jsonb('recommendations')
      .$type<Recommendation[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    // every index that alone would save the query enough: what the workload's choice picks from
    alternatives: jsonb('alternatives')
      .$type<Recommendation[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    error: text('error'),
    plannedAt: timestamp('planned_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.snapshotId, t.schemaDigest, t.hash] })],
);

/** The CI database's schema a run was posted with (tables, columns, indexes). */
export const ciRunSchemas = pgTable('ci_run_schemas', {
  runId: text('run_id')
    .primaryKey()
    .references(() => ciRuns.id, { onDelete: 'cascade' }),
  // sha256 of the schema's JSON
  digest: text('digest').notNull(),
  schema: jsonb('schema').$type<RunSchema>().notNull(),
});

/** The background analysis behind a CI run's verdict. A run without a row has no verdict to wait for. */
export const ciRunAnalyses = pgTable(
  'ci_run_analyses',
  {
    runId: text('run_id')
      .primaryKey()
      .references(() => ciRuns.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'done', 'failed', 'unavailable'] }).notNull(),
    reason: text('reason'),
    snapshotId: text('snapshot_id'),
    // Fixed when the run is analyzed, so a later policy change does not re-judge old runs.
    baselineRunId: text('baseline_run_id'),
    schemaDigest: text('schema_digest').notNull().default(''),
    droppedIndexes: jsonb('dropped_indexes')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    runNotes: jsonb('run_notes')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    done: integer('done').notNull().default(0),
    total: integer('total').notNull().default(0),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    analyzedAt: timestamp('analyzed_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    // A second foreign key to ci_runs: drizzle names it after the column unless told.
    foreignKey({ name: 'ci_run_analyses_baseline_run_id_fk', columns: [t.baselineRunId], foreignColumns: [ciRuns.id] }).onDelete('set null'),
  ],
);

/** Each query of an analyzed CI run: its cost with the run's schema applied, beside the baseline's. */
export const ciRunQueryPlans = pgTable(
  'ci_run_query_plans',
  {
    runId: text('run_id')
      .notNull()
      .references(() => ciRuns.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    cost: doublePrecision('cost'),
    inBaseline: boolean('in_baseline').notNull().default(false),
    baselineCost: doublePrecision('baseline_cost'),
    recommendations: jsonb('recommendations')
      .$type<Recommendation[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    // indexes the query's production plan uses (schema-qualified), for lost_index
    indexesUsed: jsonb('indexes_used')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    schemaNotes: jsonb('schema_notes')
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'::jsonb`),
    error: text('error'),
    // the run's plan and the baseline's, both on the run's snapshot: the verdict's plan diff and causes
    plan: jsonb('plan').$type<PlanNode>(),
    baselinePlan: jsonb('baseline_plan').$type<PlanNode>(),
    // a query not in the baseline paired with the baseline query it edits (pairing.ts): that query's
    // hash and why; baseline_cost and baseline_plan are then that query's
    pairedHash: text('paired_hash'),
    pairing: text('pairing'),
  },
  (t) => [primaryKey({ columns: [t.runId, t.hash] })],
);

/**
 * Production history: what each production connection's pg_stat_statements showed at its last
 * reading, one row per statement entry (user, queryid, top level), so the next reading's
 * difference is that entry's work in between. Only the last reading is kept.
 */
export const historyCounters = pgTable(
  'history_counters',
  {
    connectionId: text('connection_id')
      .notNull()
      .references(() => connections.id, { onDelete: 'cascade' }),
    entry: text('entry').notNull(),
    hash: text('hash').notNull(),
    calls: doublePrecision('calls').notNull(),
    totalTimeMs: doublePrecision('total_time_ms').notNull(),
    rows: doublePrecision('rows').notNull(),
    sharedBlksHit: doublePrecision('shared_blks_hit').notNull(),
    sharedBlksRead: doublePrecision('shared_blks_read').notNull(),
  },
  (t) => [primaryKey({ columns: [t.connectionId, t.entry] })],
);

/** A production connection's previous reading: when, and pg_stat_statements_info then (to see resets). */
export const historyPreviousReadings = pgTable('history_previous_readings', {
  connectionId: text('connection_id')
    .primaryKey()
    .references(() => connections.id, { onDelete: 'cascade' }),
  environmentId: text('environment_id')
    .notNull()
    .references(() => environments.id, { onDelete: 'cascade' }),
  takenAt: timestamp('taken_at', { withTimezone: true, mode: 'date' }).notNull(),
  statsReset: text('stats_reset'),
  dealloc: doublePrecision('dealloc'),
});

const historyPointColumns = () => ({
  environmentId: text('environment_id')
    .notNull()
    .references(() => environments.id, { onDelete: 'cascade' }),
  hash: text('hash').notNull(),
  at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
  calls: bigint('calls', { mode: 'number' }).notNull(),
  totalTimeMs: doublePrecision('total_time_ms').notNull(),
  rows: bigint('rows', { mode: 'number' }).notNull(),
  sharedBlksHit: bigint('shared_blks_hit', { mode: 'number' }).notNull(),
  sharedBlksRead: bigint('shared_blks_read', { mode: 'number' }).notNull(),
});

/** One query's work between two readings, summed over the environment's production connections; at = the later reading. */
export const historyPoints = pgTable('history_points', historyPointColumns(), (t) => [
  primaryKey({ columns: [t.environmentId, t.hash, t.at] }),
  index('history_points_environment_at_idx').on(t.environmentId, t.at),
]);

/**
 * Points summed per hour (at = the hour's start): kept by statement triggers on history_points
 * (history_hour_sums_inserted and _updated), so an hour's sums are there as soon as its points
 * are, and they stay when retention drops the points past full resolution. A window's whole hours are read here; its partial hours
 * from the points, or here when their points are gone.
 */
export const historyHourSums = pgTable('history_hour_sums', historyPointColumns(), (t) => [
  primaryKey({ columns: [t.environmentId, t.hash, t.at] }),
  index('history_hour_sums_environment_at_idx').on(t.environmentId, t.at),
]);

/**
 * Production's table sizes at each history reading, as the planner estimates them: what tells a
 * query that slowed down because its tables grew (history's regressed queries name them).
 * `tables` maps schema.name to [rows, bytes].
 */
export const historyTableFacts = pgTable(
  'history_table_facts',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull(),
    tables: jsonb('tables').$type<Record<string, [number, number]>>().notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.at] })],
);

/** Production events already announced per query, so a regression is told once a day, a new query once. */
export const historyEvents = pgTable(
  'history_events',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    hash: text('hash').notNull(),
    event: text('event').notNull(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.hash, t.event] })],
);

/**
 * An environment's webhooks. The URL and the signing secret are AES-256-GCM ciphertext
 * (server/secrets.ts), like a connection string; the masked URL beside them is what is shown.
 */
export const webhooks = pgTable(
  'webhooks',
  {
    id: text('id').primaryKey(),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    urlEncrypted: text('url_encrypted').notNull(),
    maskedUrl: text('masked_url').notNull(),
    format: text('format', { enum: ['json', 'slack'] }).notNull(),
    secretEncrypted: text('secret_encrypted').notNull(),
    events: jsonb('events').$type<string[]>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [index('webhooks_environment_idx').on(t.environmentId, t.createdAt)],
);

/** One event sent to one webhook: its exact body (signed as is on every attempt) and how sending went. */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    webhookId: text('webhook_id')
      .notNull()
      .references(() => webhooks.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    // What the event was about (a run id, an analysis id): one delivery per webhook and key, so an
    // emitter that runs again (a retried job) notifies once.
    eventKey: text('event_key'),
    body: text('body').notNull(),
    status: text('status', { enum: ['pending', 'delivered', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    responseExcerpt: text('response_excerpt'),
    createdAt: createdAt(),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('webhook_deliveries_environment_idx').on(t.environmentId, t.createdAt.desc(), t.id.desc()),
    uniqueIndex('webhook_deliveries_event_key').on(t.webhookId, t.event, t.eventKey),
  ],
);

// ---- People, sessions, tokens, memberships and the audit log (server/auth/, server/audit/) ----

/** A person who signed in through the identity provider (or was named by ADMIN_EMAILS / the CLI). */
export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    // lower case: memberships and ADMIN_EMAILS name people by email
    email: text('email').notNull(),
    name: text('name').notNull().default(''),
    role: text('role', { enum: ['admin', 'member'] })
      .notNull()
      .default('member'),
    createdAt: createdAt(),
    lastSignInAt: timestamp('last_sign_in_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('users_email_key').on(t.email)],
);

/**
 * A signed-in browser. The cookie holds a random value; only its SHA-256 is stored, so a copy of
 * the store signs no one in. Idle and absolute expiry are checked on every request.
 */
export const sessions = pgTable(
  'sessions',
  {
    idHash: text('id_hash').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    // sent by the SPA in X-CSRF-Token on every state-changing request
    csrfToken: text('csrf_token').notNull(),
    createdAt: createdAt(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

/** One sign-in under way: what the callback must find (single use, short-lived). */
export const signInAttempts = pgTable('sign_in_attempts', {
  stateHash: text('state_hash').primaryKey(),
  nonce: text('nonce').notNull(),
  codeVerifier: text('code_verifier').notNull(),
  returnTo: text('return_to').notNull().default('/'),
  createdAt: createdAt(),
});

/** Who may see and change an environment, by email (a person may be added before first sign-in). */
export const memberships = pgTable(
  'memberships',
  {
    environmentId: text('environment_id')
      .notNull()
      .references(() => environments.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['owner', 'editor', 'viewer'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.environmentId, t.email] }), index('memberships_email_idx').on(t.email)],
);

/**
 * Personal access tokens (kind personal: a person's, limited by scopes) and CI tokens (kind ci: an
 * environment's, only to post its runs and read their verdicts). The secret part is stored as its
 * SHA-256 only and compared in constant time.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: text('id').primaryKey(),
    kind: text('kind', { enum: ['personal', 'ci'] }).notNull(),
    name: text('name').notNull(),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    environmentId: text('environment_id').references(() => environments.id, { onDelete: 'cascade' }),
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    secretHash: text('secret_hash').notNull(),
    createdBy: text('created_by').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('api_tokens_user_idx').on(t.userId), index('api_tokens_environment_idx').on(t.environmentId)],
);

/**
 * Every change, with who made it. Kept when its environment is deleted (no foreign key): the log
 * answers "who deleted it". Settings are recorded before and after; secrets never.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: text('id').primaryKey(),
    at: timestamp('at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    actorKind: text('actor_kind', { enum: ['local', 'break-glass', 'user', 'token', 'ci-token', 'ci-oidc', 'cli'] }).notNull(),
    actor: text('actor').notNull(),
    sourceAddress: text('source_address'),
    action: text('action').notNull(),
    environmentId: text('environment_id'),
    target: text('target'),
    before: jsonb('before'),
    after: jsonb('after'),
  },
  (t) => [index('audit_log_at_idx').on(t.at.desc(), t.id.desc()), index('audit_log_environment_idx').on(t.environmentId, t.at.desc())],
);
