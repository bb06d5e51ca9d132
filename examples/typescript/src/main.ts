/**
 * A partner integration with the Rental Guarantee Partner API, to copy into your own system:
 * submit a lease's guarantee with the tenant's documents, follow the review, accept the approved
 * proposal on the tenant's behalf, keep the contract the signers sign, and wait until it is signed
 * and the guarantee is active.
 *
 *   RG_BASE_URL=https://sandbox.api.rentalguarantee.example/rental-guarantee \
 *   RG_AUTH_URL=https://sandbox.auth.rentalguarantee.example/auth \
 *   RG_CLIENT_ID=sbx_ci_... RG_CLIENT_SECRET=... npm start
 *
 * In the sandbox the cents of rentalAmount choose the review's outcome (3500.00: approved and
 * signed; 3500.01: declined; see the reference page, "Testing in the sandbox"). Set
 * RG_RENTAL_AMOUNT to try another outcome. RG_DOCUMENTS names the lease's files to attach (paths,
 * comma-separated; PDF, JPEG or PNG); without it, a stand-in PDF is written to a temporary folder.
 * The secret is read from the environment (put it there from your secret store) and never printed.
 */
import {
  createPartnerClient,
  PartnerApiError,
  PartnerClientError,
  type RentalInsurance,
  type RentalInsuranceCreate,
} from '@rental-guarantee/partner-client';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the top of src/main.ts)`);
  return value;
}

const client = createPartnerClient({
  baseUrl: required('RG_BASE_URL'),
  authUrl: required('RG_AUTH_URL'),
  clientId: required('RG_CLIENT_ID'),
  clientSecret: required('RG_CLIENT_SECRET'),
  // Least privilege: this integration manages guarantees and never reads financial records.
  scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'],
  // A deprecated operation announces its end months ahead (Deprecation, Sunset): route it to your alerts.
  onDeprecation: (notice) =>
    console.error(
      `[integration] ALERT ${notice.method} ${notice.path} is deprecated, sunset ${notice.sunsetAt?.toISOString() ?? 'not set'}: ${notice.links.join(' ')}`,
    ),
});
const waitMs = Number(process.env.RG_WAIT_SECONDS ?? 180) * 1000;

/** Your own record of the lease; its id makes the Idempotency-Key of its submission. */
interface Lease {
  contractId: string;
  tenant: RentalInsuranceCreate['tenant'];
  property: RentalInsuranceCreate['property'];
  rent: number;
  condoFee: number;
  /** The files your agent scanned for this lease (identity, income proof...), on disk. */
  documents: string[];
}

const log = (message: string) => console.log(`[integration] ${message}`);
const describe = (guarantee: RentalInsurance) => `rental insurance ${guarantee.id}: ${guarantee.status}`;

/**
 * Submitting a lease twice (a retry after a crash, a double click) must not create two
 * guarantees: the Idempotency-Key comes from the lease, so the second submission gets the stored
 * answer of the first (replayed: true) for 24 hours. Store the key with the lease before sending.
 */
async function submit(lease: Lease): Promise<RentalInsurance> {
  const { data, replayed, effects } = await client.rentalInsurances.create(
    { externalId: lease.contractId, tenant: lease.tenant, property: lease.property, rentalAmount: lease.rent, condoFee: lease.condoFee },
    { idempotencyKey: `lease-${lease.contractId}-submit` },
  );
  log(
    `submitted ${lease.contractId}: ${describe(data)}${replayed ? ' (already submitted: same guarantee)' : ''}, effects: ${effects.join(', ') || 'none'}`,
  );
  return data;
}

/**
 * The tenant's documents go with the submission: read from disk as they are sent (up to five per
 * call, 10 MB each), in one history entry the reviewer sees at once. The Idempotency-Key comes from
 * the lease too, so a retried submission does not attach them twice.
 */
async function attachDocuments(lease: Lease, guarantee: RentalInsurance): Promise<void> {
  const { data, replayed } = await client.documents.attachDocuments(
    guarantee.id,
    lease.documents.map((file) => ({ path: file })),
    { comment: "The tenant's documents.", idempotencyKey: `lease-${lease.contractId}-documents` },
  );
  const names = data.documents.map((document) => `${document.fileName} (${document.contentType}, ${document.size} bytes)`);
  log(`attached ${data.documents.length} document(s): ${names.join(', ')}${replayed ? ' (already attached)' : ''}`);
}

/** The review takes seconds in the sandbox and longer in production: poll cheaply (If-None-Match). */
async function decision(guarantee: RentalInsurance): Promise<RentalInsurance> {
  const { data } = await client.rentalInsurances.waitFor(guarantee.id, (current) => current.status !== 'under_review', { timeoutMs: waitMs });
  log(
    `reviewed: ${describe(data)}${data.installmentAmount === null ? '' : `, installment ${data.installmentAmount}, coverage ${data.coverageLimit}`}`,
  );
  return data;
}

/**
 * Information requested: the reviewer says what in the history, and may attach a checklist or a
 * form (its `documents`: download them with downloadDocument); change the data and wait again.
 */
async function answerInformationRequest(guarantee: RentalInsurance): Promise<RentalInsurance> {
  const history = await client.rentalInsurances.history(guarantee.id);
  const request = [...history].reverse().find((entry) => entry.comment);
  const attachedByReviewer = request?.documents.map((document) => document.fileName).join(', ');
  log(`information requested: "${request?.comment ?? '(no comment)'}"${attachedByReviewer ? `, with ${attachedByReviewer}` : ''}`);
  // modify() reads the latest version, applies the change and retries if someone changed it meanwhile.
  await client.rentalInsurances.modify(guarantee.id, () => ({ tenant: { profession: 'Engenheira civil' } }));
  return decision(guarantee);
}

async function acceptAndWaitForSignatures(guarantee: RentalInsurance): Promise<RentalInsurance> {
  const accepted = await client.rentalInsurances.accept(guarantee.id);
  log(`accepted: ${describe(accepted.data)}, effects: ${accepted.effects.join(', ')}`);
  const { data } = await client.rentalInsurances
    .waitFor(guarantee.id, (current) => current.status !== 'accepted', { timeoutMs: waitMs })
    .catch(async (error: unknown) => {
      if (!(error instanceof PartnerClientError)) throw error;
      return client.rentalInsurances.get(guarantee.id); // still accepted: a signer has not signed (or refused)
    });
  const signatures = await client.rentalInsurances.signatures(guarantee.id);
  log(`signatures: ${signatures.map((signature) => `${signature.role} ${signature.status}`).join(', ')}`);
  // The contract the signers sign is a document: keep the very bytes next to the lease.
  const contractId = signatures.find((signature) => signature.role === 'document')?.documentId;
  if (contractId) {
    const file = path.join(os.tmpdir(), `contract-${guarantee.id}-${contractId}.pdf`);
    const contract = await client.documents.downloadDocument(guarantee.id, contractId, file);
    log(`contract downloaded to ${contract.path} (${contract.size} bytes, SHA-256 ${contract.sha256.slice(0, 16)}..., checked)`);
  }
  log(`now: ${describe(data)}${data.startBillingDate ? `, billing from ${data.startBillingDate}` : ''}`);
  return data;
}

/** A one-page PDF standing in for the scan of the tenant's income proof, when RG_DOCUMENTS names none. */
function standInDocument(): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'lease-')), 'comprovante-renda.pdf');
  fs.writeFileSync(file, `%PDF-1.4\n% stand-in for a scanned income proof\ntrailer << >>\n%%EOF\n`);
  return file;
}

async function main(): Promise<number> {
  const lease: Lease = {
    contractId: process.env.RG_CONTRACT_ID ?? `LEASE-${randomUUID().slice(0, 8)}`,
    tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva', email: 'maria.silva@example.com', phoneNumber: '(11) 98765-4321' },
    property: {
      externalId: 'IMV-4821',
      type: 'apartment',
      address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    },
    rent: Number(process.env.RG_RENTAL_AMOUNT ?? 3500),
    condoFee: 850,
    documents: process.env.RG_DOCUMENTS?.split(',').map((file) => file.trim()) ?? [standInDocument()],
  };
  let guarantee = await submit(lease);
  await submit(lease); // a retried submission: the same guarantee, not a second one
  await attachDocuments(lease, guarantee);
  guarantee = await decision(guarantee);
  if (guarantee.status === 'information_requested') guarantee = await answerInformationRequest(guarantee);
  if (guarantee.status !== 'approved') {
    log(`not approved (${guarantee.status}): tell the agent, nothing to accept`);
    return 0;
  }
  guarantee = await acceptAndWaitForSignatures(guarantee);
  return guarantee.status === 'active' || guarantee.status === 'accepted' ? 0 : 1;
}

main()
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    // Typed errors name the problem; quote the correlation id to support.
    if (error instanceof PartnerApiError)
      console.error(`[integration] API error ${error.status} ${error.code}: ${error.message} ${error.details.join('; ')}`);
    else console.error(`[integration] ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
