-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "RentalInsuranceStatus" AS ENUM ('under_review', 'information_requested', 'approved', 'declined', 'expired', 'accepted', 'declined_by_tenant', 'active', 'terminated', 'archived');

-- CreateEnum
CREATE TYPE "PropertyType" AS ENUM ('apartment', 'house', 'commercial');

-- CreateEnum
CREATE TYPE "SignatureRole" AS ENUM ('document', 'tenant', 'co_tenant');

-- CreateEnum
CREATE TYPE "SignatureStatus" AS ENUM ('pending', 'awaiting_signature', 'signed', 'refused');

-- CreateEnum
CREATE TYPE "StatementType" AS ENUM ('charge_paid', 'charge_refunded', 'revenue_shared', 'fee', 'transfer_sent', 'transfer_refunded', 'transfer_received');

-- CreateTable
CREATE TABLE "companies" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "companies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credentials" (
    "id" UUID NOT NULL,
    "client_id" TEXT NOT NULL,
    "company_id" TEXT NOT NULL,
    "display_name" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_by" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "credentials_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "credential_secrets" (
    "id" UUID NOT NULL,
    "credential_id" UUID NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "credential_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "access_tokens" (
    "token_hash" TEXT NOT NULL,
    "credential_id" UUID NOT NULL,
    "secret_id" UUID NOT NULL,
    "company_id" TEXT NOT NULL,
    "scopes" TEXT[],
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "access_tokens_pkey" PRIMARY KEY ("token_hash")
);

-- CreateTable
CREATE TABLE "rental_insurances" (
    "id" BIGSERIAL NOT NULL,
    "company_id" TEXT NOT NULL,
    "external_id" TEXT,
    "status" "RentalInsuranceStatus" NOT NULL,
    "version" INTEGER NOT NULL DEFAULT 1,
    "creator_name" TEXT NOT NULL,
    "creator_service_account" BOOLEAN NOT NULL,
    "tenant_cpf_cnpj" TEXT NOT NULL,
    "tenant_name" TEXT NOT NULL,
    "tenant_name_search" TEXT NOT NULL,
    "tenant_email" TEXT,
    "tenant_birth_date" DATE,
    "tenant_phone" TEXT,
    "tenant_profession" TEXT,
    "property_external_id" TEXT NOT NULL,
    "property_type" "PropertyType" NOT NULL,
    "address_zip_code" TEXT NOT NULL,
    "address_street" TEXT NOT NULL,
    "address_number" TEXT NOT NULL,
    "address_complement" TEXT,
    "address_neighborhood" TEXT NOT NULL,
    "address_city" TEXT NOT NULL,
    "address_state" TEXT NOT NULL,
    "rental_amount" DECIMAL(12,2) NOT NULL,
    "condo_fee" DECIMAL(12,2),
    "property_tax" DECIMAL(12,2),
    "other_fees" DECIMAL(12,2),
    "setup_fee" DECIMAL(12,2),
    "installment_amount" DECIMAL(12,2),
    "coverage_limit" DECIMAL(14,2),
    "rent_coverage_limit" DECIMAL(14,2),
    "remaining_coverage_amount" DECIMAL(14,2),
    "rent_remaining_coverage_amount" DECIMAL(14,2),
    "start_billing_date" DATE,
    "termination_date" DATE,
    "approved_at" TIMESTAMPTZ(3),
    "terminated_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "rental_insurances_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "co_tenants" (
    "id" BIGSERIAL NOT NULL,
    "rental_insurance_id" BIGINT NOT NULL,
    "cpf_cnpj" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "email" TEXT,
    "birth_date" DATE,
    "phone_number" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "co_tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "history_entries" (
    "id" BIGSERIAL NOT NULL,
    "rental_insurance_id" BIGINT NOT NULL,
    "kind" TEXT NOT NULL,
    "creator_name" TEXT NOT NULL,
    "creator_service_account" BOOLEAN NOT NULL,
    "comment" TEXT,
    "previous_status" "RentalInsuranceStatus",
    "status" "RentalInsuranceStatus" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "history_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "documents" (
    "id" BIGSERIAL NOT NULL,
    "history_entry_id" BIGINT NOT NULL,
    "file_name" TEXT,

    CONSTRAINT "documents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "signatures" (
    "id" BIGSERIAL NOT NULL,
    "rental_insurance_id" BIGINT NOT NULL,
    "role" "SignatureRole" NOT NULL,
    "cpf_cnpj" TEXT,
    "name" TEXT,
    "url" TEXT,
    "status" "SignatureStatus" NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "signatures_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "idempotency_records" (
    "company_id" TEXT NOT NULL,
    "key" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "response_status" INTEGER NOT NULL,
    "response_headers" JSONB NOT NULL,
    "response_body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_records_pkey" PRIMARY KEY ("company_id","key")
);

-- CreateTable
CREATE TABLE "statement_entries" (
    "id" BIGSERIAL NOT NULL,
    "company_id" TEXT NOT NULL,
    "date" DATE NOT NULL,
    "description" TEXT,
    "amount" DECIMAL(14,2) NOT NULL,
    "type" "StatementType" NOT NULL,
    "rental_insurance_id" BIGINT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "statement_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "audit_log" (
    "id" BIGSERIAL NOT NULL,
    "actor" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "company_id" TEXT,
    "credential_id" UUID,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "credentials_client_id_key" ON "credentials"("client_id");

-- CreateIndex
CREATE INDEX "credentials_company_id_idx" ON "credentials"("company_id");

-- CreateIndex
CREATE INDEX "credential_secrets_credential_id_idx" ON "credential_secrets"("credential_id");

-- CreateIndex
CREATE INDEX "access_tokens_expires_at_idx" ON "access_tokens"("expires_at");

-- CreateIndex
CREATE INDEX "rental_insurances_company_id_created_at_id_idx" ON "rental_insurances"("company_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "rental_insurances_company_id_status_created_at_id_idx" ON "rental_insurances"("company_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "rental_insurances_company_id_tenant_cpf_cnpj_created_at_id_idx" ON "rental_insurances"("company_id", "tenant_cpf_cnpj", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "rental_insurances_company_id_property_external_id_created_a_idx" ON "rental_insurances"("company_id", "property_external_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "rental_insurances_status_approved_at_idx" ON "rental_insurances"("status", "approved_at");

-- CreateIndex
CREATE UNIQUE INDEX "co_tenants_rental_insurance_id_cpf_cnpj_key" ON "co_tenants"("rental_insurance_id", "cpf_cnpj");

-- CreateIndex
CREATE INDEX "history_entries_rental_insurance_id_id_idx" ON "history_entries"("rental_insurance_id", "id");

-- CreateIndex
CREATE INDEX "documents_history_entry_id_idx" ON "documents"("history_entry_id");

-- CreateIndex
CREATE INDEX "signatures_rental_insurance_id_id_idx" ON "signatures"("rental_insurance_id", "id");

-- CreateIndex
CREATE INDEX "idempotency_records_created_at_idx" ON "idempotency_records"("created_at");

-- CreateIndex
CREATE INDEX "statement_entries_company_id_date_id_idx" ON "statement_entries"("company_id", "date", "id");

-- CreateIndex
CREATE INDEX "statement_entries_company_id_type_date_id_idx" ON "statement_entries"("company_id", "type", "date", "id");

-- CreateIndex
CREATE INDEX "audit_log_company_id_created_at_idx" ON "audit_log"("company_id", "created_at");

-- AddForeignKey
ALTER TABLE "credentials" ADD CONSTRAINT "credentials_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "credential_secrets" ADD CONSTRAINT "credential_secrets_credential_id_fkey" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_credential_id_fkey" FOREIGN KEY ("credential_id") REFERENCES "credentials"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "access_tokens" ADD CONSTRAINT "access_tokens_secret_id_fkey" FOREIGN KEY ("secret_id") REFERENCES "credential_secrets"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "rental_insurances" ADD CONSTRAINT "rental_insurances_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "co_tenants" ADD CONSTRAINT "co_tenants_rental_insurance_id_fkey" FOREIGN KEY ("rental_insurance_id") REFERENCES "rental_insurances"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "history_entries" ADD CONSTRAINT "history_entries_rental_insurance_id_fkey" FOREIGN KEY ("rental_insurance_id") REFERENCES "rental_insurances"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "documents" ADD CONSTRAINT "documents_history_entry_id_fkey" FOREIGN KEY ("history_entry_id") REFERENCES "history_entries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "signatures" ADD CONSTRAINT "signatures_rental_insurance_id_fkey" FOREIGN KEY ("rental_insurance_id") REFERENCES "rental_insurances"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "statement_entries" ADD CONSTRAINT "statement_entries_company_id_fkey" FOREIGN KEY ("company_id") REFERENCES "companies"("id") ON DELETE RESTRICT ON UPDATE CASCADE;


-- Substring search on the accent-free, lower-cased tenant name ("jose" finds "José").
-- Prisma's schema cannot express a trigram GIN index, so it is written here by hand.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX "rental_insurances_tenant_name_search_trgm_idx" ON "rental_insurances" USING gin ("tenant_name_search" gin_trgm_ops);
