-- Issue 35: documents. A document row belongs to a history entry (and its guarantee and agency), its
-- bytes are a blob of the agency, stored once per SHA-256 (document_blobs), in PostgreSQL
-- (document_chunks) or in an S3-compatible store (DOCUMENT_STORE_URL). No document row was ever
-- written before this migration (no operation wrote one), so the new columns need no default.
ALTER TABLE "documents"
    ADD COLUMN "company_id" TEXT NOT NULL,
    ADD COLUMN "rental_insurance_id" BIGINT NOT NULL,
    ADD COLUMN "content_type" TEXT NOT NULL,
    ADD COLUMN "size" BIGINT NOT NULL,
    ADD COLUMN "sha256" TEXT NOT NULL,
    ADD COLUMN "creator_name" TEXT NOT NULL,
    ADD COLUMN "creator_service_account" BOOLEAN NOT NULL,
    ADD COLUMN "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    ADD COLUMN "purged_at" TIMESTAMPTZ(3);

ALTER TABLE "documents" ADD CONSTRAINT "documents_rental_insurance_id_fkey"
    FOREIGN KEY ("rental_insurance_id") REFERENCES "rental_insurances"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE INDEX "documents_rental_insurance_id_id_idx" ON "documents"("rental_insurance_id", "id" DESC);
CREATE INDEX "documents_company_id_sha256_idx" ON "documents"("company_id", "sha256");

-- The contract a `document` signature record asks to sign.
ALTER TABLE "signatures" ADD COLUMN "document_id" BIGINT;
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_document_id_fkey"
    FOREIGN KEY ("document_id") REFERENCES "documents"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- The bytes of one agency, once per SHA-256: where they are (`store`: postgres or s3, `storage_key`).
CREATE TABLE "document_blobs" (
    "company_id" TEXT NOT NULL,
    "sha256" TEXT NOT NULL,
    "size" BIGINT NOT NULL,
    "content_type" TEXT NOT NULL,
    "store" TEXT NOT NULL,
    "storage_key" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_blobs_pkey" PRIMARY KEY ("company_id", "sha256")
);

-- The PostgreSQL store: the bytes of one storage key in chunks of 256 KiB, in order. PDF, JPEG and
-- PNG are compressed already: EXTERNAL keeps them out of line without trying to compress them.
CREATE TABLE "document_chunks" (
    "storage_key" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "data" BYTEA NOT NULL,

    CONSTRAINT "document_chunks_pkey" PRIMARY KEY ("storage_key", "seq")
);
ALTER TABLE "document_chunks" ALTER COLUMN "data" SET STORAGE EXTERNAL;

-- Bytes being uploaded (or kept by no document yet): deleted with their row when their request
-- fails, or by housekeeping when a process stopped before it could.
CREATE TABLE "document_uploads" (
    "storage_key" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "store" TEXT NOT NULL,
    "started_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "document_uploads_pkey" PRIMARY KEY ("storage_key")
);
CREATE INDEX "document_uploads_started_at_idx" ON "document_uploads"("started_at");

-- Bytes an agency uploaded per calendar day (America/Sao_Paulo), in 16 shards.
CREATE TABLE "document_quota_usage" (
    "company_id" TEXT NOT NULL,
    "day" DATE NOT NULL,
    "shard" SMALLINT NOT NULL DEFAULT 0,
    "bytes" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "document_quota_usage_pkey" PRIMARY KEY ("company_id", "day", "shard")
);
