/**
 * The contract's signature records: created when a proposal is accepted (document, tenant, each
 * co-tenant, all pending without url), reset to pending when the contract is reissued, discarded
 * when it is invalidated.
 */
import type { Queryable, Transaction } from '../database/prisma-client';
import type { components } from '../generated/partner-api';
import type { SignatureChange } from './status-machine';

export async function applySignatureChange(tx: Transaction, rentalInsuranceId: bigint, change: SignatureChange): Promise<void> {
  if (change === 'keep') return;
  await tx.signature.deleteMany({ where: { rentalInsuranceId } });
  if (change === 'discard') return;
  // 'create' and 'reset' both produce fresh pending records for the current parties.
  const guarantee = await tx.rentalInsurance.findUniqueOrThrow({
    where: { id: rentalInsuranceId },
    select: { tenantCpfCnpj: true, tenantName: true, coTenants: { orderBy: { id: 'asc' } } },
  });
  await tx.signature.createMany({
    data: [
      { rentalInsuranceId, role: 'document', cpfCnpj: null, name: null, status: 'pending' },
      { rentalInsuranceId, role: 'tenant', cpfCnpj: guarantee.tenantCpfCnpj, name: guarantee.tenantName, status: 'pending' },
      ...guarantee.coTenants.map((coTenant) => ({
        rentalInsuranceId,
        role: 'co_tenant' as const,
        cpfCnpj: coTenant.cpfCnpj,
        name: coTenant.name,
        status: 'pending' as const,
      })),
    ],
  });
}

export async function listSignatures(db: Queryable, rentalInsuranceId: bigint): Promise<components['schemas']['Signature'][]> {
  const rows = await db.signature.findMany({ where: { rentalInsuranceId }, orderBy: { id: 'asc' } });
  return rows.map((row) => {
    const record: components['schemas']['Signature'] = { role: row.role, cpfCnpj: row.cpfCnpj, name: row.name, status: row.status };
    if (row.status !== 'pending' && row.url !== null) record.url = row.url;
    return record;
  });
}
