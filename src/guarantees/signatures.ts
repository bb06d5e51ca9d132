/**
 * The contract's signature records: created when a proposal is accepted (document, tenant, each
 * co-tenant, all pending without url), reset to pending when the contract is reissued, discarded
 * when it is invalidated.
 */
import type { Queryable } from '../database/prisma-client';
import { sqlOf, type AnyTransaction } from '../database/sql';
import type { components } from '../generated/partner-api';
import type { SignatureChange } from './status-machine';

export async function applySignatureChange(tx: AnyTransaction, rentalInsuranceId: bigint, change: SignatureChange): Promise<void> {
  if (change === 'keep') return;
  const sql = sqlOf(tx);
  await sql.rows('DELETE FROM signatures WHERE rental_insurance_id = $1', [rentalInsuranceId]);
  if (change === 'discard') return;
  // 'create' and 'reset' both produce fresh pending records for the current parties, in this
  // order: the document, the tenant, then each co-tenant as added.
  await sql.rows(
    `INSERT INTO signatures (rental_insurance_id, role, cpf_cnpj, name, status)
     SELECT $1::int8, 'document'::"SignatureRole", NULL::text, NULL::text, 'pending'::"SignatureStatus"
     UNION ALL SELECT r.id, 'tenant', r.tenant_cpf_cnpj, r.tenant_name, 'pending' FROM rental_insurances r WHERE r.id = $1
     UNION ALL (SELECT c.rental_insurance_id, 'co_tenant', c.cpf_cnpj, c.name, 'pending' FROM co_tenants c WHERE c.rental_insurance_id = $1 ORDER BY c.id)`,
    [rentalInsuranceId],
  );
}

export async function listSignatures(db: Queryable, rentalInsuranceId: bigint): Promise<components['schemas']['Signature'][]> {
  const rows = await db.signature.findMany({ where: { rentalInsuranceId }, orderBy: { id: 'asc' } });
  return rows.map((row) => {
    const record: components['schemas']['Signature'] = { role: row.role, cpfCnpj: row.cpfCnpj, name: row.name, status: row.status };
    if (row.status !== 'pending' && row.url !== null) record.url = row.url;
    return record;
  });
}
