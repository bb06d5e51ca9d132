-- Issue 23 item 1: a credential view reads its active secrets and its latest revoked ones from
-- this index (active first: DESC puts NULL first), never the whole list of a credential.
DROP INDEX "credential_secrets_credential_id_idx";

CREATE INDEX "credential_secrets_credential_id_revoked_at_created_at_idx" ON "credential_secrets"("credential_id", "revoked_at" DESC, "created_at" DESC);
