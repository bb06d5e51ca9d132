-- Issue 23 item 2: an endpoint belongs to a credential, whose scopes gate every delivery. Existing
-- endpoints get the agency oldest partner credential that still holds ri:webhooks:manage and is
-- not revoked, or else the agency oldest credential (whose missing scope or revocation then stops
-- the deliveries until a credential that may read them sets the endpoint URL or event types).
ALTER TABLE "webhook_endpoints" ADD COLUMN "credential_id" UUID;

UPDATE "webhook_endpoints" e SET "credential_id" = (
  SELECT c."id" FROM "credentials" c
  WHERE c."company_id" = e."company_id"
  ORDER BY (c."kind" = 'partner' AND c."revoked_at" IS NULL AND 'ri:webhooks:manage' = ANY (c."scopes")) DESC, c."created_at", c."id"
  LIMIT 1
);

-- An agency endpoint was registered by one of its credentials, so every row has one, and a row without
-- any (written by hand) could never be delivered to, and is removed with its deliveries.
DELETE FROM "webhook_endpoints" WHERE "credential_id" IS NULL;

ALTER TABLE "webhook_endpoints" ALTER COLUMN "credential_id" SET NOT NULL;

ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_credential_id_fkey" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE RESTRICT ON UPDATE CASCADE;
