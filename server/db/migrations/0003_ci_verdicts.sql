CREATE TABLE "ci_run_analyses" (
	"run_id" text PRIMARY KEY NOT NULL,
	"status" text NOT NULL,
	"reason" text,
	"snapshot_id" text,
	"baseline_run_id" text,
	"schema_digest" text DEFAULT '' NOT NULL,
	"dropped_indexes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"run_notes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"analyzed_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "ci_run_query_plans" (
	"run_id" text NOT NULL,
	"hash" text NOT NULL,
	"cost" double precision,
	"in_baseline" boolean DEFAULT false NOT NULL,
	"baseline_cost" double precision,
	"recommendations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"indexes_used" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"schema_notes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	CONSTRAINT "ci_run_query_plans_run_id_hash_pk" PRIMARY KEY("run_id","hash")
);
--> statement-breakpoint
CREATE TABLE "ci_run_schemas" (
	"run_id" text PRIMARY KEY NOT NULL,
	"digest" text NOT NULL,
	"schema" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "production_snapshots" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"connection_id" text NOT NULL,
	"read_at" timestamp with time zone NOT NULL,
	"digest" text NOT NULL,
	"snapshot" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "query_acknowledgements" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"note" text,
	"cost" double precision,
	"acknowledged_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_acknowledgements_environment_id_hash_pk" PRIMARY KEY("environment_id","hash")
);
--> statement-breakpoint
CREATE TABLE "query_plans" (
	"environment_id" text NOT NULL,
	"snapshot_id" text NOT NULL,
	"schema_digest" text NOT NULL,
	"hash" text NOT NULL,
	"cost" double precision,
	"plan_shape" text,
	"plan" jsonb,
	"plan_after" jsonb,
	"indexes_used" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"tables_used" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"recommendations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"error" text,
	"planned_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "query_plans_environment_id_snapshot_id_schema_digest_hash_pk" PRIMARY KEY("environment_id","snapshot_id","schema_digest","hash")
);
--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "policy" jsonb DEFAULT '{}'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "ci_run_analyses" ADD CONSTRAINT "ci_run_analyses_run_id_ci_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."ci_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_run_analyses" ADD CONSTRAINT "ci_run_analyses_baseline_run_id_fk" FOREIGN KEY ("baseline_run_id") REFERENCES "public"."ci_runs"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_run_query_plans" ADD CONSTRAINT "ci_run_query_plans_run_id_ci_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."ci_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_run_schemas" ADD CONSTRAINT "ci_run_schemas_run_id_ci_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."ci_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "production_snapshots" ADD CONSTRAINT "production_snapshots_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_acknowledgements" ADD CONSTRAINT "query_acknowledgements_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_plans" ADD CONSTRAINT "query_plans_snapshot_id_production_snapshots_id_fk" FOREIGN KEY ("snapshot_id") REFERENCES "public"."production_snapshots"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "production_snapshots_environment_idx" ON "production_snapshots" USING btree ("environment_id","read_at" DESC NULLS LAST);