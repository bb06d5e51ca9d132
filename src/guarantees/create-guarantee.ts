/** A partner creates a guarantee: it always starts under review (creation never decides the review). */
import type { UnitOfWork } from '../database/unit-of-work';
import { Conflict } from '../errors';
import { emitGuaranteeEvents, type ChangeOutcome } from './transitions/guarantee-change';
import type { NewGuarantee } from './guarantee-input';
import { insertGuarantee, type CoTenantColumns } from './guarantee-repository';
import type { Actor } from '../auth/actors';
import { recordHistory } from './history';
import { CREATION_EFFECTS, INITIAL_STATUS } from './transitions/status-machine';

export async function createGuarantee(
  unit: UnitOfWork,
  companyId: string,
  actor: Actor,
  { columns, coTenants }: NewGuarantee,
): Promise<ChangeOutcome> {
  assertDistinctPeople(columns['tenantCpfCnpj'] as string, coTenants);

  const row = await insertGuarantee(
    unit.db,
    {
      ...columns,
      companyId,
      status: INITIAL_STATUS,
      version: 1,
      creatorName: actor.name,
      creatorServiceAccount: actor.serviceAccount,
    },
    coTenants,
  );
  recordHistory(unit, {
    rentalInsuranceId: row.id,
    kind: 'created',
    actor,
    comment: 'Rental insurance created; review started.',
    previousStatus: null,
    status: INITIAL_STATUS,
  });
  const rentalInsurance = await emitGuaranteeEvents(unit, {
    row,
    previousStatus: null,
    status: INITIAL_STATUS,
    effects: CREATION_EFFECTS,
    signaturesChanged: false,
    comment: 'Rental insurance created; review started.',
  });
  return { row, effects: CREATION_EFFECTS, rentalInsurance };
}

/** No co-tenant may repeat the tenant's or another co-tenant's CPF/CNPJ. */
export function assertDistinctPeople(tenantCpfCnpj: string, coTenants: Pick<CoTenantColumns, 'cpfCnpj'>[]): void {
  const seen = new Set([tenantCpfCnpj]);
  for (const coTenant of coTenants) {
    if (seen.has(coTenant.cpfCnpj)) {
      throw new Conflict('duplicate_co_tenant', `The CPF/CNPJ ${coTenant.cpfCnpj} is already the tenant's or another co-tenant's.`);
    }
    seen.add(coTenant.cpfCnpj);
  }
}
