CREATE TABLE "history_baselines" (
	"connection_id" text PRIMARY KEY NOT NULL,
	"environment_id" text NOT NULL,
	"taken_at" timestamp with time zone NOT NULL,
	"stats_reset" text,
	"dealloc" double precision
);
--> statement-breakpoint
CREATE TABLE "history_counters" (
	"connection_id" text NOT NULL,
	"entry" text NOT NULL,
	"hash" text NOT NULL,
	"calls" double precision NOT NULL,
	"total_time_ms" double precision NOT NULL,
	"rows" double precision NOT NULL,
	"shared_blks_hit" double precision NOT NULL,
	"shared_blks_read" double precision NOT NULL,
	CONSTRAINT "history_counters_connection_id_entry_pk" PRIMARY KEY("connection_id","entry")
);
--> statement-breakpoint
CREATE TABLE "history_events" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"event" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	CONSTRAINT "history_events_environment_id_hash_event_pk" PRIMARY KEY("environment_id","hash","event")
);
--> statement-breakpoint
CREATE TABLE "history_hourly" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"calls" bigint NOT NULL,
	"total_time_ms" double precision NOT NULL,
	"rows" bigint NOT NULL,
	"shared_blks_hit" bigint NOT NULL,
	"shared_blks_read" bigint NOT NULL,
	CONSTRAINT "history_hourly_environment_id_hash_at_pk" PRIMARY KEY("environment_id","hash","at")
);
--> statement-breakpoint
CREATE TABLE "history_points" (
	"environment_id" text NOT NULL,
	"hash" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"calls" bigint NOT NULL,
	"total_time_ms" double precision NOT NULL,
	"rows" bigint NOT NULL,
	"shared_blks_hit" bigint NOT NULL,
	"shared_blks_read" bigint NOT NULL,
	CONSTRAINT "history_points_environment_id_hash_at_pk" PRIMARY KEY("environment_id","hash","at")
);
--> statement-breakpoint
ALTER TABLE "environments" ADD COLUMN "snapshot_interval_seconds" integer;--> statement-breakpoint
ALTER TABLE "history_baselines" ADD CONSTRAINT "history_baselines_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_baselines" ADD CONSTRAINT "history_baselines_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_counters" ADD CONSTRAINT "history_counters_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_events" ADD CONSTRAINT "history_events_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_hourly" ADD CONSTRAINT "history_hourly_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_points" ADD CONSTRAINT "history_points_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "history_hourly_environment_at_idx" ON "history_hourly" USING btree ("environment_id","at");--> statement-breakpoint
CREATE INDEX "history_points_environment_at_idx" ON "history_points" USING btree ("environment_id","at");