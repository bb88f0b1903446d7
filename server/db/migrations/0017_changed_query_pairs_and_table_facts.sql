CREATE TABLE "history_table_facts" (
	"environment_id" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"tables" jsonb NOT NULL,
	CONSTRAINT "history_table_facts_environment_id_at_pk" PRIMARY KEY("environment_id","at")
);
--> statement-breakpoint
ALTER TABLE "ci_run_query_plans" ADD COLUMN "paired_hash" text;--> statement-breakpoint
ALTER TABLE "ci_run_query_plans" ADD COLUMN "pairing" text;--> statement-breakpoint
ALTER TABLE "history_table_facts" ADD CONSTRAINT "history_table_facts_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;