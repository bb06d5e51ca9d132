-- Every service process keeps the principals of recent access tokens in memory
-- (src/auth/principal-cache.ts). These triggers tell every process, through NOTIFY on the channel
-- `auth_revoked`, which credential lost a token, a secret or its own validity, so that the cached
-- principals of that credential are evicted at once. NOTIFY is transactional: it is delivered at
-- COMMIT, and never for a change that rolls back. Payload: `credential:<uuid>`.
--
-- Prisma's migration runner splits scripts at every semicolon (even in strings), so each function
-- body is an escape string whose semicolons are written \073.

CREATE FUNCTION "notify_credential_revoked"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''auth_revoked'', ''credential:'' || changed.id) FROM (SELECT DISTINCT n.id::text AS id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.revoked_at IS DISTINCT FROM o.revoked_at) AS changed\073 RETURN NULL\073 END';

CREATE TRIGGER "credentials_revocation_notify"
    AFTER UPDATE ON "credentials" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_credential_revoked"();

CREATE FUNCTION "notify_secret_revoked"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''auth_revoked'', ''credential:'' || changed.id) FROM (SELECT DISTINCT n.credential_id::text AS id FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE n.revoked_at IS DISTINCT FROM o.revoked_at) AS changed\073 RETURN NULL\073 END';

CREATE TRIGGER "credential_secrets_revocation_notify"
    AFTER UPDATE ON "credential_secrets" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_secret_revoked"();

CREATE FUNCTION "notify_tokens_deleted"() RETURNS trigger
LANGUAGE plpgsql AS E'BEGIN PERFORM pg_notify(''auth_revoked'', ''credential:'' || deleted.id) FROM (SELECT DISTINCT credential_id::text AS id FROM old_rows) AS deleted\073 RETURN NULL\073 END';

CREATE TRIGGER "access_tokens_revocation_notify"
    AFTER DELETE ON "access_tokens" REFERENCING OLD TABLE AS old_rows
    FOR EACH STATEMENT EXECUTE FUNCTION "notify_tokens_deleted"();
