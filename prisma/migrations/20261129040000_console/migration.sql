-- Issue 37: the console. People who sign in with passkeys (directors and staff), their one-time
-- invitations, passkeys, server-side sessions and WebAuthn challenges, and each secret's last use.

-- A secret's last use: when it last obtained a token and from which address, and tokens per hour.
ALTER TABLE "credential_secrets" ADD COLUMN "last_token_at" TIMESTAMPTZ(3), ADD COLUMN "last_token_address" TEXT;

CREATE TABLE "secret_token_hours" (
    "secret_id" UUID NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,
    CONSTRAINT "secret_token_hours_pkey" PRIMARY KEY ("secret_id","hour")
);
CREATE INDEX "secret_token_hours_hour_idx" ON "secret_token_hours"("hour");
ALTER TABLE "secret_token_hours" ADD CONSTRAINT "secret_token_hours_secret_id_fkey" FOREIGN KEY ("secret_id") REFERENCES "credential_secrets"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "console_people" (
    "id" UUID NOT NULL,
    "kind" "CredentialKind" NOT NULL,
    "company_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT[],
    "user_handle" TEXT NOT NULL,
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "console_people_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "console_people_user_handle_key" ON "console_people"("user_handle");
CREATE INDEX "console_people_company_id_idx" ON "console_people"("company_id");
ALTER TABLE "console_people" ADD CONSTRAINT "console_people_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

CREATE TABLE "console_invitations" (
    "token_hash" TEXT NOT NULL,
    "person_id" UUID NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "console_invitations_pkey" PRIMARY KEY ("token_hash")
);
CREATE INDEX "console_invitations_person_id_idx" ON "console_invitations"("person_id");
ALTER TABLE "console_invitations" ADD CONSTRAINT "console_invitations_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "console_people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "console_passkeys" (
    "id" TEXT NOT NULL,
    "person_id" UUID NOT NULL,
    "public_key" BYTEA NOT NULL,
    "counter" BIGINT NOT NULL DEFAULT 0,
    "transports" TEXT[],
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    CONSTRAINT "console_passkeys_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "console_passkeys_person_id_idx" ON "console_passkeys"("person_id");
ALTER TABLE "console_passkeys" ADD CONSTRAINT "console_passkeys_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "console_people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "console_sessions" (
    "token_hash" TEXT NOT NULL,
    "person_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_seen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "console_sessions_pkey" PRIMARY KEY ("token_hash")
);
CREATE INDEX "console_sessions_person_id_idx" ON "console_sessions"("person_id");
CREATE INDEX "console_sessions_expires_at_idx" ON "console_sessions"("expires_at");
ALTER TABLE "console_sessions" ADD CONSTRAINT "console_sessions_person_id_fkey" FOREIGN KEY ("person_id") REFERENCES "console_people"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "console_challenges" (
    "id" UUID NOT NULL,
    "challenge" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "person_id" UUID,
    "invitation_hash" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    CONSTRAINT "console_challenges_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "console_challenges_challenge_key" ON "console_challenges"("challenge");
CREATE INDEX "console_challenges_expires_at_idx" ON "console_challenges"("expires_at");
