-- Every change to what a credential resolves to (a session, a token, a person, a membership) is
-- announced on one channel once its transaction commits. A server that keeps resolved principals
-- in memory (the PGlite store, held by one process) forgets them all when it hears one, so a
-- revoked token or an ended session stops working with the statement that ended it.
CREATE FUNCTION qt_auth_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('qt_auth_changed', TG_TABLE_NAME);
  RETURN NULL;
END;
$$;--> statement-breakpoint
CREATE TRIGGER sessions_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sessions" FOR EACH STATEMENT EXECUTE FUNCTION qt_auth_changed();--> statement-breakpoint
CREATE TRIGGER api_tokens_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "api_tokens" FOR EACH STATEMENT EXECUTE FUNCTION qt_auth_changed();--> statement-breakpoint
CREATE TRIGGER users_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION qt_auth_changed();--> statement-breakpoint
CREATE TRIGGER memberships_auth_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "memberships" FOR EACH STATEMENT EXECUTE FUNCTION qt_auth_changed();
