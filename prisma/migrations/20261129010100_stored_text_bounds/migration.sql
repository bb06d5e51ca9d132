-- Issue 34: what an answer shows is stored within the bound the contracts declare for it, whoever
-- writes it (the partner API validates its input against the contract, the back office's command-line
-- tool, the scheduler and the sandbox write beside it). char_length counts characters, as JSON Schema's
-- maxLength does. NOT VALID: rows already stored are not scanned (a deploy never waits on, nor fails
-- for, an old row), and every row written from now on is checked.
-- A company id names the agency in answers, links and the back office's Company-Id header.
ALTER TABLE "companies" ADD CONSTRAINT "companies_id_shape" CHECK ("id" ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$') NOT VALID;

ALTER TABLE "credentials"
  ADD CONSTRAINT "credentials_text_lengths" CHECK (
    char_length("client_id") <= 64 AND char_length("company_id") <= 100 AND char_length("display_name") <= 200
    AND char_length("person_name") <= 200 AND char_length("created_by") <= 250
  ) NOT VALID;

ALTER TABLE "rental_insurances"
  ADD CONSTRAINT "rental_insurances_text_lengths" CHECK (
    char_length("external_id") <= 100 AND char_length("creator_name") <= 200 AND char_length("tenant_name") <= 200
    AND char_length("tenant_email") <= 254 AND char_length("tenant_profession") <= 100
    AND char_length("property_external_id") <= 100 AND char_length("address_street") <= 200
    AND char_length("address_number") <= 20 AND char_length("address_complement") <= 100
    AND char_length("address_neighborhood") <= 100 AND char_length("address_city") <= 100
  ) NOT VALID;

ALTER TABLE "co_tenants"
  ADD CONSTRAINT "co_tenants_text_lengths" CHECK (char_length("name") <= 200 AND char_length("email") <= 254) NOT VALID;

ALTER TABLE "history_entries"
  ADD CONSTRAINT "history_entries_text_lengths" CHECK (char_length("comment") <= 2000 AND char_length("creator_name") <= 200) NOT VALID;

ALTER TABLE "documents" ADD CONSTRAINT "documents_file_name_length" CHECK (char_length("file_name") <= 100) NOT VALID;

ALTER TABLE "signatures"
  ADD CONSTRAINT "signatures_text_lengths" CHECK (char_length("name") <= 200 AND char_length("url") <= 500 AND char_length("cpf_cnpj") <= 14) NOT VALID;

ALTER TABLE "statement_entries" ADD CONSTRAINT "statement_entries_description_length" CHECK (char_length("description") <= 200) NOT VALID;

ALTER TABLE "audit_log"
  ADD CONSTRAINT "audit_log_text_lengths" CHECK (
    char_length("actor") <= 250 AND char_length("action") <= 100 AND char_length("company_id") <= 100
  ) NOT VALID;

ALTER TABLE "webhook_endpoints"
  ADD CONSTRAINT "webhook_endpoints_text_lengths" CHECK (char_length("url") <= 2048 AND char_length("description") <= 200) NOT VALID;

ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_error_length" CHECK (char_length("error") <= 200) NOT VALID;

ALTER TABLE "request_log"
  ADD CONSTRAINT "request_log_text_lengths" CHECK (
    char_length("path") <= 200 AND char_length("resource_id") <= 100 AND char_length("operation_id") <= 100
    AND char_length("error_code") <= 64 AND cardinality("error_details") <= 5
    AND char_length(array_to_string("error_details", '')) <= 1000 AND char_length("correlation_id") <= 128
    AND char_length("idempotency_key") <= 255 AND char_length("credential_name") <= 200
    AND char_length("source_address") <= 45
  ) NOT VALID;
