/**
 * A partner adds, changes or removes a co-tenant. Co-tenants are contractual data: the status
 * machine decides what the change does (reissue an accepted contract, restart a review asked for
 * information, or 409 on a closed guarantee). Each write receives the guarantee locked by its
 * precondition, whose version the pipeline has already compared with If-Match.
 */
import type { UnitOfWork } from '../database/unit-of-work';
import { Conflict, NotFound, ValidationFailed } from '../errors';
import type { components } from '../generated/partner-api';
import { normaliseCpfCnpj } from '../validation';
import { assertDistinctPeople } from './create-guarantee';
import { FieldProblems } from './field-problems';
import { applyChange, type ChangeOutcome } from './guarantee-change';
import { deleteCoTenant, insertCoTenant, updateCoTenant } from './co-tenant-repository';
import { coTenantColumns, type CoTenantColumns } from './guarantee-input';
import type { GuaranteeRow } from './guarantee-mapper';
import type { Actor } from '../auth/actors';
import { transition } from './status-machine';
import type { ContractIssuer } from './documents/contract-issuer';

export const MAX_CO_TENANTS = 10;
const CONTRACTUAL_CHANGE = { type: 'partner_changed_data', monetary: false, contractual: true } as const;

/** The new co-tenant's columns, or 400 with every problem (checked before the guarantee is looked up). */
export function newCoTenantColumns(body: components['schemas']['CoTenantCreate']): CoTenantColumns & { name: string } {
  const problems = new FieldProblems();
  const columns = coTenantColumns(problems, '', body);
  problems.throwIfAny();
  return { ...columns, name: body.name };
}

/** The changed columns of a merge patch of the co-tenant `cpfCnpj` (normalised), or 400 with every problem. */
export function coTenantChanges(patch: components['schemas']['CoTenantPatch'], cpfCnpj: string): Omit<CoTenantColumns, 'cpfCnpj'> {
  const problems = new FieldProblems();
  const { cpfCnpj: _ignored, ...requested } = coTenantColumns(problems, '', { ...patch, cpfCnpj });
  problems.throwIfAny();
  return requested;
}

/** The path accepts a formatted or unformatted CPF/CNPJ; one that is not well-formed is 400 (contract). */
export function coTenantKey(raw: string): string {
  const result = normaliseCpfCnpj(raw);
  if (!result.ok) throw new ValidationFailed([`path.cpfCnpj: ${result.reason}`]);
  return result.value;
}

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
  if (changed.length === 0) return { row: current, effects: [] };
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
