ALTER TABLE "analysis_runs" ADD COLUMN "index_health" jsonb;--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "hidden_indexes" jsonb DEFAULT '[]'::jsonb NOT NULL;--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "hidden_effect" jsonb;