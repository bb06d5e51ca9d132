/**
 * A partner adds, changes or removes a co-tenant. Co-tenants are contractual data: the status
 * machine decides what the change does (reissue an accepted contract, restart a review asked for
 * information, or 409 on a closed guarantee). Each write receives the guarantee locked by its
 * precondition, whose version the pipeline has already compared with If-Match.
 */
import type { UnitOfWork } from '../../database/unit-of-work';
import { Conflict, NotFound } from '../../errors';
import { assertDistinctPeople } from '../create-guarantee';
import { applyChange, unchanged, type ChangeOutcome } from './guarantee-change';
import { deleteCoTenant, insertCoTenant, updateCoTenant } from '../co-tenant-repository';
import type { CoTenantColumns } from '../guarantee-repository';
import type { GuaranteeRow } from '../guarantee-mapper';
import type { Actor } from '../../auth/actors';
import { transition } from './status-machine';
import type { ContractIssuer } from '../documents/contract-issuer';

export const MAX_CO_TENANTS = 10;
const CONTRACTUAL_CHANGE = { type: 'partner_changed_data', monetary: false, contractual: true } as const;

export async function addCoTenant(
  unit: UnitOfWork,
  actor: Actor,
  current: GuaranteeRow,
  columns: CoTenantColumns & { name: string },
  contracts?: ContractIssuer,
): Promise<ChangeOutcome> {
  // A closed guarantee refuses the write before anything else is looked at.
  transition(current.status, CONTRACTUAL_CHANGE);
  assertDistinctPeople(current.tenantCpfCnpj, [...current.coTenants, columns]);
  if (current.coTenants.length >= MAX_CO_TENANTS) {
    throw new Conflict('co_tenant_limit_reached', `A rental insurance has at most ${MAX_CO_TENANTS} co-tenants.`);
  }
  await insertCoTenant(unit.db, current.id, columns);
  return applyChange(unit, current, {
    actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_added',
    note: `Co-tenant ${columns.cpfCnpj} added.`,
    contracts,
  });
}

export async function patchCoTenant(
  unit: UnitOfWork,
  actor: Actor,
  current: GuaranteeRow,
  cpfCnpj: string,
  requested: Omit<CoTenantColumns, 'cpfCnpj'>,
  contracts?: ContractIssuer,
): Promise<ChangeOutcome> {
  transition(current.status, CONTRACTUAL_CHANGE);
  const coTenant = current.coTenants.find((candidate) => candidate.cpfCnpj === cpfCnpj);
  if (!coTenant) throw new NotFound('Co-tenant not found.');
  const changed = (Object.keys(requested) as Array<keyof typeof requested>).filter((field) => {
    const before = coTenant[field];
    const after = requested[field];
    return before instanceof Date && after instanceof Date ? before.getTime() !== after.getTime() : before !== after;
  });
  if (changed.length === 0) return unchanged(current);
  await updateCoTenant(unit.db, coTenant.id, Object.fromEntries(changed.map((field) => [field, requested[field]])));
  return applyChange(unit, current, {
    actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_changed',
    note: `Co-tenant ${cpfCnpj} changed: ${changed.join(', ')}.`,
    contracts,
  });
}

export async function removeCoTenant(
  unit: UnitOfWork,
  actor: Actor,
  current: GuaranteeRow,
  cpfCnpj: string,
  contracts?: ContractIssuer,
): Promise<ChangeOutcome> {
  transition(current.status, CONTRACTUAL_CHANGE);
  const coTenant = current.coTenants.find((candidate) => candidate.cpfCnpj === cpfCnpj);
  if (!coTenant) throw new NotFound('Co-tenant not found.');
  await deleteCoTenant(unit.db, coTenant.id);
  return applyChange(unit, current, {
    actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_removed',
    note: `Co-tenant ${cpfCnpj} removed.`,
    contracts,
  });
}
