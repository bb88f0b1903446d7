ALTER TABLE "ci_run_query_plans" ADD COLUMN "plan" jsonb;--> statement-breakpoint
ALTER TABLE "ci_run_query_plans" ADD COLUMN "baseline_plan" jsonb;