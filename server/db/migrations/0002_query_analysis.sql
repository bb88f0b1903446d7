CREATE TABLE "analysis_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"status" text NOT NULL,
	"phase" text DEFAULT 'queued' NOT NULL,
	"done" integer DEFAULT 0 NOT NULL,
	"total" integer DEFAULT 0 NOT NULL,
	"query_count" integer DEFAULT 0 NOT NULL,
	"connection_label" text NOT NULL,
	"error" text,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"indexes" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "query_analyses" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"analysis_id" text NOT NULL,
	"cost" double precision,
	"plan_shape" text,
	"plan" jsonb,
	"plan_after" jsonb,
	"recommendations" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"recommendation_count" integer DEFAULT 0 NOT NULL,
	"total_saved" double precision,
	"error" text,
	"analyzed_at" timestamp with time zone NOT NULL,
	CONSTRAINT "query_analyses_environment_id_hash_pk" PRIMARY KEY("environment_id","hash")
);
--> statement-breakpoint
ALTER TABLE "ci_run_queries" ADD COLUMN "cost" double precision;--> statement-breakpoint
ALTER TABLE "ci_run_queries" ADD COLUMN "recommendation_count" integer;--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD CONSTRAINT "analysis_runs_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_analyses" ADD CONSTRAINT "query_analyses_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "query_analyses" ADD CONSTRAINT "query_analyses_analysis_id_analysis_runs_id_fk" FOREIGN KEY ("analysis_id") REFERENCES "public"."analysis_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analysis_runs_environment_idx" ON "analysis_runs" USING btree ("environment_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "analysis_runs_one_running_key" ON "analysis_runs" USING btree ("environment_id") WHERE status = 'running';