/**
 * The contract's signature records: created when a proposal is accepted (document, tenant, each
 * co-tenant, all pending without url), reset to pending when the contract is reissued, discarded
 * when it is invalidated.
 */
import type { Queryable } from '../database/prisma-client';
import type { components } from '../generated/partner-api';
import type { SignatureChange } from './transitions/status-machine';

type SignatureRecord = components['schemas']['Signature'];

/**
 * Applies the status machine's signature consequence and answers the records it leaves (in order),
 * or undefined when it leaves them as they were. Fresh records replace the old ones in one
 * statement that returns them, so the change's events need no second read.
 */
export async function applySignatureChange(
  db: Queryable,
  rentalInsuranceId: bigint,
  change: SignatureChange,
  /** 'create' and 'reset': the contract the `document` record asks to sign. */
  contractId?: bigint,
): Promise<SignatureRecord[] | undefined> {
  if (change === 'keep') return undefined;
  if (change === 'discard') {
    await db.signature.deleteMany({ where: { rentalInsuranceId } });
    return [];
  }
  // 'create' and 'reset' both produce fresh pending records for the current parties, in this
  // order: the document, the tenant, then each co-tenant as added.
  const rows = await db.$queryRaw<SignatureRow[]>`
    WITH discarded AS (DELETE FROM signatures WHERE rental_insurance_id = ${rentalInsuranceId})
    INSERT INTO signatures (rental_insurance_id, role, cpf_cnpj, name, status, document_id)
    SELECT ${rentalInsuranceId}::int8, 'document'::"SignatureRole", NULL::text, NULL::text, 'pending'::"SignatureStatus", ${contractId ?? null}::int8
    UNION ALL SELECT r.id, 'tenant', r.tenant_cpf_cnpj, r.tenant_name, 'pending', NULL FROM rental_insurances r WHERE r.id = ${rentalInsuranceId}
    UNION ALL (SELECT c.rental_insurance_id, 'co_tenant', c.cpf_cnpj, c.name, 'pending', NULL FROM co_tenants c
               WHERE c.rental_insurance_id = ${rentalInsuranceId} ORDER BY c.id)
    RETURNING id, role, cpf_cnpj AS "cpfCnpj", name, url, status, document_id AS "documentId"`;
  return rows.sort((a, b) => (a.id < b.id ? -1 : 1)).map(toSignatureRecord);
}

/** A record's columns, as the statements here and in signature-page.ts read them. */
export interface SignatureRow {
  id: bigint;
  role: SignatureRecord['role'];
  cpfCnpj: string | null;
  name: string | null;
  url: string | null;
  status: SignatureRecord['status'];
  documentId: bigint | null;
}

export function toSignatureRecord(row: SignatureRow): SignatureRecord {
  const documentId = row.documentId === null ? null : Number(row.documentId);
  const record: SignatureRecord = { role: row.role, cpfCnpj: row.cpfCnpj, name: row.name, status: row.status, documentId };
  if (row.status !== 'pending' && row.url !== null) record.url = row.url;
  return record;
}

/** The guarantee's current records in order (a change's events, the admin tool): one page of them, or all of them. */
export async function listSignatures(db: Queryable, rentalInsuranceId: bigint, page?: { offset: number; size: number }): Promise<SignatureRecord[]> {
  const rows = await db.signature.findMany({
    where: { rentalInsuranceId },
    orderBy: { id: 'asc' },
    ...(page ? { skip: page.offset, take: page.size } : {}),
  });
  return rows.map(toSignatureRecord);
}
