CREATE TABLE "catalog_queries" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"query" text NOT NULL,
	"formatted_query" text NOT NULL,
	"first_seen_at" timestamp with time zone NOT NULL,
	"last_seen_at" timestamp with time zone NOT NULL,
	"last_seen_source" text NOT NULL,
	"ci_run_count" integer DEFAULT 0 NOT NULL,
	"production_calls" bigint,
	"production_mean_time_ms" double precision,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "ci_run_queries" (
	"run_id" text NOT NULL,
	"hash" text NOT NULL,
	"query" text NOT NULL,
	"formatted_query" text NOT NULL,
	"calls" bigint,
	"mean_time_ms" double precision,
	CONSTRAINT "ci_run_queries_run_id_hash_pk" PRIMARY KEY("run_id","hash")
);
--> statement-breakpoint
CREATE TABLE "ci_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"repo" text NOT NULL,
	"run_id" text NOT NULL,
	"environment_id" text,
	"branch" text,
	"commit_sha" text,
	"pull_request" integer,
	"started_at" timestamp with time zone,
	"query_count" integer DEFAULT 0 NOT NULL,
	"new_query_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "connections" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"label" text NOT NULL,
	"role" text DEFAULT 'other' NOT NULL,
	"connection_string_encrypted" text NOT NULL,
	"masked_connection_string" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "environments" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"slug" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "repo_links" (
	"id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"repo" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "catalog_queries" ADD CONSTRAINT "catalog_queries_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_run_queries" ADD CONSTRAINT "ci_run_queries_run_id_ci_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."ci_runs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "ci_runs" ADD CONSTRAINT "ci_runs_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "connections" ADD CONSTRAINT "connections_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "repo_links" ADD CONSTRAINT "repo_links_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "catalog_queries_environment_hash_key" ON "catalog_queries" USING btree ("environment_id","hash");--> statement-breakpoint
CREATE INDEX "catalog_queries_recent_idx" ON "catalog_queries" USING btree ("environment_id","last_seen_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE UNIQUE INDEX "ci_runs_repo_run_key" ON "ci_runs" USING btree (lower("repo"),"run_id");--> statement-breakpoint
CREATE INDEX "ci_runs_recent_idx" ON "ci_runs" USING btree ("created_at" DESC NULLS LAST,"id");--> statement-breakpoint
CREATE INDEX "connections_environment_idx" ON "connections" USING btree ("environment_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "environments_slug_key" ON "environments" USING btree ("slug");--> statement-breakpoint
CREATE UNIQUE INDEX "repo_links_repo_key" ON "repo_links" USING btree (lower("repo"));--> statement-breakpoint
CREATE INDEX "repo_links_environment_idx" ON "repo_links" USING btree ("environment_id");