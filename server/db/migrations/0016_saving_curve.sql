ALTER TABLE "analysis_runs" ADD COLUMN "saving_curve" jsonb;--> statement-breakpoint
ALTER TABLE "analysis_runs" ADD COLUMN "stop_reason" jsonb;