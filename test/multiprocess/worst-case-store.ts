/**
 * A store filled to the contract's worst case (issue 34 item 2): every text an answer shows at its
 * longest, in the characters that cost most, and every list with more rows than a page holds.
 *
 * The costliest text: control characters (JSON writes `\u0001`, 6 bytes for one character) with one
 * character beyond Latin-1 (`€`), which makes V8 keep the string, and the JSON of the whole answer
 * around it, in two bytes per character: 12 bytes of heap for each character of text. Text whose
 * contract pattern allows only printable ASCII is filled with `"` where the pattern allows it (JSON
 * writes `\"`), else with letters. Rows are stored directly, as the service would have stored them.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { DIRECTOR_SCOPES } from '../../src/auth/scopes';
import { startSession } from '../../src/auth/session-store';
import request from 'supertest';
import { API } from '../support/partner-api';
import type { Agency, World } from '../support/test-app';

/** `length` characters of the costliest text. */
export const worst = (length: number): string => '\u0001'.repeat(length - 1) + '€';
const letters = (length: number, prefix = ''): string => prefix + 'a'.repeat(length - prefix.length);
const quotes = (length: number): string => '"'.repeat(length);

/** More rows than any page holds (200 at most). */
const ROWS = 210;

export interface WorstStore {
  companyId: string;
  /** A director's console session (the cookie's token) whose person holds the most passkeys, at their longest. */
  consoleSession: string;
  guaranteeId: number;
  endpointId: string;
  deliveryId: string;
  credentialId: string;
  /** The first and last day of the daily summaries' range (366 days). */
  summaries: { startDate: string; endDate: string };
  statementDay: string;
}

const day = (offset: number): string => new Date(Date.UTC(2026, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);

/** Fills the world's database for `companyId` (its agency's credential `credentialId`). */
export async function fillWorstCase(world: World, agency: Agency, guaranteeId: number): Promise<WorstStore> {
  const db = world.db;
  const { companyId, credentialId } = agency;
  const money = { rental: '999999999.99', coverage: '999999999999.99' };

  // Guarantees: the one created through the API made as long as it may be, then copied.
  await db.$executeRaw`UPDATE rental_insurances SET
      external_id = ${worst(100)}, creator_name = ${worst(200)}, tenant_name = ${worst(200)}, tenant_name_search = ${worst(200)},
      tenant_email = ${letters(242) + '@example.com'}, tenant_profession = ${worst(100)}, tenant_phone = '+5511987654321',
      tenant_birth_date = DATE '1988-04-12', property_external_id = ${worst(100)}, address_street = ${worst(200)},
      address_number = ${worst(20)}, address_complement = ${worst(100)}, address_neighborhood = ${worst(100)}, address_city = ${worst(100)},
      rental_amount = ${money.rental}::numeric, condo_fee = ${money.rental}::numeric, property_tax = ${money.rental}::numeric,
      other_fees = ${money.rental}::numeric, setup_fee = ${money.rental}::numeric, installment_amount = ${money.rental}::numeric,
      coverage_limit = ${money.coverage}::numeric, rent_coverage_limit = ${money.coverage}::numeric,
      remaining_coverage_amount = ${money.coverage}::numeric, rent_remaining_coverage_amount = ${money.coverage}::numeric,
      status = 'active', start_billing_date = DATE '2026-12-01', termination_date = DATE '2027-12-01', version = 999999
    WHERE id = ${BigInt(guaranteeId)}`;
  // More guarantees than a page holds, waiting for review (the reviewers' queue lists them).
  await db.$executeRaw`INSERT INTO rental_insurances (company_id, external_id, status, version, creator_name, creator_service_account,
      tenant_cpf_cnpj, tenant_name, tenant_name_search, tenant_email, tenant_birth_date, tenant_phone, tenant_profession,
      property_external_id, property_type, address_zip_code, address_street, address_number, address_complement,
      address_neighborhood, address_city, address_state, rental_amount, condo_fee, property_tax, other_fees, setup_fee,
      installment_amount, coverage_limit, rent_coverage_limit, remaining_coverage_amount, rent_remaining_coverage_amount,
      start_billing_date, termination_date)
    SELECT company_id, external_id, 'under_review', version, creator_name, creator_service_account, tenant_cpf_cnpj, tenant_name,
      tenant_name_search, tenant_email, tenant_birth_date, tenant_phone, tenant_profession, property_external_id, property_type,
      address_zip_code, address_street, address_number, address_complement, address_neighborhood, address_city, address_state,
      rental_amount, condo_fee, property_tax, other_fees, setup_fee, installment_amount, coverage_limit, rent_coverage_limit,
      remaining_coverage_amount, rent_remaining_coverage_amount, start_billing_date, termination_date
    FROM rental_insurances, generate_series(1, ${ROWS}::int) WHERE id = ${BigInt(guaranteeId)}`;
  // Ten co-tenants on every guarantee of the agency.
  await db.$executeRaw`INSERT INTO co_tenants (rental_insurance_id, cpf_cnpj, name, email, birth_date, phone_number)
    SELECT r.id, lpad(n::text, 11, '0'), ${worst(200)}, ${letters(242) + '@example.com'}, DATE '1986-09-30', '+5511912345678'
    FROM rental_insurances r, generate_series(1, 10) AS n WHERE r.company_id = ${companyId}`;

  // History: more entries than a page, each with its longest comment and five documents.
  await db.$executeRaw`INSERT INTO history_entries (rental_insurance_id, kind, creator_name, creator_service_account, comment, previous_status, status)
    SELECT ${BigInt(guaranteeId)}, 'comment', ${worst(200)}, true, ${worst(2000)}, 'active', 'active' FROM generate_series(1, 60)`;
  // A name of 255 bytes (the upload cleans names to that), shown in at most 255 characters.
  await db.$executeRaw`INSERT INTO documents (history_entry_id, file_name, company_id, rental_insurance_id, content_type, size, sha256,
      creator_name, creator_service_account)
    SELECT h.id, ${'\u0001'.repeat(255)}, ${companyId}, h.rental_insurance_id, 'application/pdf', 10485760, repeat('f', 64), ${worst(200)}, true
    FROM history_entries h, generate_series(1, 5) WHERE h.rental_insurance_id = ${BigInt(guaranteeId)}`;

  // Signatures: more records than a page (a guarantee holds twelve; the contract's page holds 200).
  await db.$executeRaw`INSERT INTO signatures (rental_insurance_id, role, cpf_cnpj, name, url, status)
    SELECT ${BigInt(guaranteeId)}, 'co_tenant', ${worst(14)}, ${worst(200)}, ${letters(500, 'https://sign.example/')}, 'awaiting_signature'
    FROM generate_series(1, ${ROWS}::int)`;

  // Money: a year of daily totals and a page's worth of statement entries on one day.
  await db.$executeRaw`INSERT INTO ledger_daily_totals (company_id, date, credits, debits)
    SELECT ${companyId}, DATE '2026-01-01' + n, 99999999999999999.99, 99999999999999999.99 FROM generate_series(0, 365) AS n`;
  await db.$executeRaw`INSERT INTO statement_entries (company_id, date, description, amount, type)
    SELECT ${companyId}, DATE '2026-06-01', ${worst(200)}, -999999999999.99, 'transfer_sent' FROM generate_series(1, ${ROWS}::int)`;

  // Webhook endpoints, deliveries and attempts, and the events they deliver.
  const endpointId = randomUUID();
  const eventTypes = Array.from({ length: 20 }, () => 'rental_insurance.signature_changed');
  await db.$executeRaw`INSERT INTO webhook_endpoints (id, company_id, credential_id, url, description, event_types, enabled, disabled_reason,
      failing_since, secret, previous_secret_expires_at)
    SELECT CASE WHEN n = 1 THEN ${endpointId}::uuid ELSE gen_random_uuid() END, ${companyId}, ${credentialId}::uuid,
      ${letters(2048, 'https://receiver.example/')}, ${worst(200)}, ${eventTypes}::text[], false, 'operator', now(), 'unused', now()
    FROM generate_series(1, ${ROWS}::int) AS n`;
  const events = await signatureEvents(world, agency, guaranteeId);
  const eventId = randomUUID();
  await db.$executeRaw`INSERT INTO events (id, company_id, type, data)
    SELECT CASE WHEN n = 1 THEN ${eventId}::uuid ELSE gen_random_uuid() END, ${companyId}, 'rental_insurance.signature_changed', ${events}::jsonb
    FROM generate_series(1, ${ROWS}::int) AS n`;
  await db.$executeRaw`INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id, status, next_attempt_at)
    SELECT ${endpointId}::uuid, ${eventId}::uuid, ${companyId}, 'pending', now() FROM generate_series(1, 90)`;
  const [delivery] = await db.$queryRaw<
    Array<{ id: string }>
  >`SELECT id::text FROM webhook_deliveries WHERE endpoint_id = ${endpointId}::uuid LIMIT 1`;
  await db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
    SELECT d.id, 599, 2147483647, ${quotes(200)} FROM webhook_deliveries d, generate_series(1, 25) WHERE d.endpoint_id = ${endpointId}::uuid`;
  await db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
    SELECT ${delivery!.id}::uuid, 599, 2147483647, ${quotes(200)} FROM generate_series(1, ${ROWS}::int)`;

  // The request log: a page's worth of the longest 4xx lines.
  await db.$executeRaw`INSERT INTO request_log (company_id, at, method, path, operation_id, resource_id, status, error_code, error_details,
      correlation_id, idempotency_key, idempotent_replay, duration_ms, credential_id, credential_name, source_address)
    SELECT ${companyId}, now() - make_interval(secs => n), 'DELETE', ${letters(200, '/')}, ${letters(100)}, ${letters(100)}, 499,
      ${letters(64)}, array_fill(${quotes(200)}::text, ARRAY[5]), ${letters(128)}, ${quotes(255)}, false, 3.4e38, ${credentialId}::uuid,
      ${worst(200)}, ${letters(45)}
    FROM generate_series(1, ${ROWS}::int) AS n`;

  // The audit log: entries with the most details each may hold.
  const details: Record<string, unknown> = { url: letters(2048, 'https://receiver.example/') };
  for (let i = 0; i < 11; i++) details[letters(40, `k${i}`)] = worst(200);
  await db.$executeRaw`INSERT INTO audit_log (actor, action, company_id, credential_id, details)
    SELECT ${worst(250)}, ${worst(100)}, ${companyId}, ${credentialId}::uuid, ${JSON.stringify(details)}::jsonb FROM generate_series(1, ${ROWS}::int)`;

  // Credentials of the agency, each with its ten secrets (two active).
  await db.$executeRaw`INSERT INTO credentials (id, client_id, company_id, display_name, scopes, created_by, kind, person_name, revoked_at)
    SELECT gen_random_uuid(), ${letters(57, 'sbx_ci_')} || lpad(n::text, 7, '0'), ${companyId}, ${worst(200)},
      ARRAY['ri:rental-insurances:read', 'ri:rental-insurances:write', 'ri:financial:read', 'ri:webhooks:manage', 'ri:events:read', 'ri:request-log:read'],
      ${worst(250)}, 'partner', ${worst(200)}, now()
    FROM generate_series(1, ${ROWS}::int) AS n`;
  await db.$executeRaw`INSERT INTO credential_secrets (id, credential_id, secret_hash, revoked_at)
    SELECT gen_random_uuid(), c.id, 'unused', CASE WHEN n <= 2 THEN NULL ELSE now() END
    FROM credentials c, generate_series(1, 10) AS n WHERE c.company_id = ${companyId} AND c.display_name = ${worst(200)}`;
  const [credential] = await db.$queryRaw<Array<{ id: string }>>`SELECT id::text FROM credentials WHERE display_name = ${worst(200)} LIMIT 1`;

  // The console: a director with the longest name and the most passkeys (ids and names at their longest).
  const person = await db.consolePerson.create({
    data: {
      kind: 'director',
      companyId,
      name: worst(200),
      scopes: [...DIRECTOR_SCOPES],
      userHandle: randomBytes(32).toString('base64url'),
      createdBy: 'test',
    },
  });
  for (let n = 0; n < 10; n++) {
    await db.consolePasskey.create({
      data: { id: `${n}${'A'.repeat(1365)}`, personId: person.id, publicKey: randomBytes(77), name: worst(100), lastUsedAt: new Date() },
    });
  }
  const session = await startSession(db, world.config.ENVIRONMENT, person.id, { idleMinutes: 30, maxHours: 12 });
  // More directors than a page of listDirectors holds, each with the longest name.
  await db.consolePerson.createMany({
    data: Array.from({ length: 200 }, () => ({
      kind: 'director' as const,
      companyId,
      name: worst(200),
      scopes: [...DIRECTOR_SCOPES],
      userHandle: randomBytes(32).toString('base64url'),
      createdBy: 'test',
    })),
  });

  return {
    companyId,
    consoleSession: session.token,
    guaranteeId,
    endpointId,
    deliveryId: delivery!.id,
    credentialId: credential!.id,
    summaries: { startDate: day(0), endDate: day(365) },
    statementDay: '2026-06-01',
  };
}

/**
 * The data of a signature event at its longest: the guarantee as the API answers it (the in-process
 * app checks every answer against the contract), twelve signatures and the longest comment.
 */
async function signatureEvents(world: World, agency: Agency, guaranteeId: number): Promise<string> {
  const answer = await request(world.app).get(`${API}/v1/rental-insurances/${guaranteeId}`).set(agency.auth);
  if (answer.status !== 200) throw new Error(`the worst guarantee: ${answer.status} ${answer.text.slice(0, 500)}`);
  const signature = {
    role: 'co_tenant',
    documentId: null,
    cpfCnpj: worst(14),
    name: worst(200),
    url: letters(500, 'https://sign.example/'),
    status: 'awaiting_signature',
  };
  return JSON.stringify({ comment: worst(2000), signatures: Array.from({ length: 12 }, () => signature), rentalInsurance: answer.body });
}
