ALTER TABLE "history_hourly" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "history_hourly" CASCADE;--> statement-breakpoint
ALTER TABLE "history_baselines" RENAME TO "history_previous_readings";--> statement-breakpoint
ALTER TABLE "history_previous_readings" DROP CONSTRAINT "history_baselines_connection_id_connections_id_fk";
--> statement-breakpoint
ALTER TABLE "history_previous_readings" DROP CONSTRAINT "history_baselines_environment_id_environments_id_fk";
--> statement-breakpoint
ALTER TABLE "history_previous_readings" ADD CONSTRAINT "history_previous_readings_connection_id_connections_id_fk" FOREIGN KEY ("connection_id") REFERENCES "public"."connections"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_previous_readings" ADD CONSTRAINT "history_previous_readings_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;