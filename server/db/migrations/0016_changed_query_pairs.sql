ALTER TABLE "ci_run_query_plans" ADD COLUMN "paired_hash" text;--> statement-breakpoint
ALTER TABLE "ci_run_query_plans" ADD COLUMN "pairing" text;