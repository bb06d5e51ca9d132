/**
 * A partner adds, changes or removes a co-tenant. Co-tenants are contractual data: the status
 * machine decides what the change does (reissue an accepted contract, restart a review asked for
 * information, or 409 on a closed guarantee).
 */
import type { AnyTransaction } from '../database/sql';
import { Conflict, NotFound, ValidationFailed } from '../errors';
import type { components } from '../generated/partner-api';
import { assertCurrentVersion } from '../http/preconditions';
import { normaliseCpfCnpj } from '../validation';
import { assertDistinctPeople } from './create-guarantee';
import { FieldProblems } from './field-problems';
import { applyChange, type ChangeOutcome } from './guarantee-change';
import { deleteCoTenant, insertCoTenant, updateCoTenant } from './co-tenant-repository';
import { coTenantColumns } from './guarantee-input';
import type { GuaranteeRow } from './guarantee-mapper';
import { lockGuarantee } from './guarantee-repository';
import type { Actor } from './history';
import { transition } from './status-machine';

export const MAX_CO_TENANTS = 10;
const CONTRACTUAL_CHANGE = { type: 'partner_changed_data', monetary: false, contractual: true } as const;

interface Target {
  companyId: string;
  actor: Actor;
  id: bigint;
  ifMatch: number[];
}

/** The guarantee, locked and read in full, after the version and status checks every co-tenant write makes. */
async function lockCurrent(tx: AnyTransaction, target: Target): Promise<GuaranteeRow> {
  const current = await lockGuarantee(tx, target.companyId, target.id);
  if (!current) throw new NotFound();
  assertCurrentVersion(target.ifMatch, current.version);
  // A closed guarantee refuses the write before anything else is looked at.
  transition(current.status, CONTRACTUAL_CHANGE);
  return current;
}

export async function addCoTenant(tx: AnyTransaction, target: Target, body: components['schemas']['CoTenantCreate']): Promise<ChangeOutcome> {
  const problems = new FieldProblems();
  const columns = coTenantColumns(problems, '', body);
  problems.throwIfAny();
  const current = await lockCurrent(tx, target);
  assertDistinctPeople(current.tenantCpfCnpj, [...current.coTenants, columns]);
  if (current.coTenants.length >= MAX_CO_TENANTS) {
    throw new Conflict('co_tenant_limit_reached', `A rental insurance has at most ${MAX_CO_TENANTS} co-tenants.`);
  }
  await insertCoTenant(tx, current.id, { ...columns, name: body.name });
  return applyChange(tx, current, {
    actor: target.actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_added',
    note: `Co-tenant ${columns.cpfCnpj} added.`,
  });
}

export async function patchCoTenant(
  tx: AnyTransaction,
  target: Target,
  rawCpfCnpj: string,
  patch: components['schemas']['CoTenantPatch'],
): Promise<ChangeOutcome> {
  const cpfCnpj = coTenantKey(rawCpfCnpj);
  const problems = new FieldProblems();
  const { cpfCnpj: _ignored, ...requested } = coTenantColumns(problems, '', { ...patch, cpfCnpj });
  problems.throwIfAny();
  const current = await lockCurrent(tx, target);
  const coTenant = current.coTenants.find((candidate) => candidate.cpfCnpj === cpfCnpj);
  if (!coTenant) throw new NotFound('Co-tenant not found.');
  const changed = (Object.keys(requested) as Array<keyof typeof requested>).filter((field) => {
    const before = coTenant[field];
    const after = requested[field];
    return before instanceof Date && after instanceof Date ? before.getTime() !== after.getTime() : before !== after;
  });
  if (changed.length === 0) return { row: current, effects: [] };
  await updateCoTenant(tx, coTenant.id, Object.fromEntries(changed.map((field) => [field, requested[field]])));
  return applyChange(tx, current, {
    actor: target.actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_changed',
    note: `Co-tenant ${cpfCnpj} changed: ${changed.join(', ')}.`,
  });
}

export async function removeCoTenant(tx: AnyTransaction, target: Target, rawCpfCnpj: string): Promise<ChangeOutcome> {
  const cpfCnpj = coTenantKey(rawCpfCnpj);
  const current = await lockCurrent(tx, target);
  const coTenant = current.coTenants.find((candidate) => candidate.cpfCnpj === cpfCnpj);
  if (!coTenant) throw new NotFound('Co-tenant not found.');
  await deleteCoTenant(tx, coTenant.id);
  return applyChange(tx, current, {
    actor: target.actor,
    event: CONTRACTUAL_CHANGE,
    historyKind: 'co_tenant_removed',
    note: `Co-tenant ${cpfCnpj} removed.`,
  });
}

/** The path accepts a formatted or unformatted CPF/CNPJ; one that is not well-formed is 400 (contract). */
function coTenantKey(raw: string): string {
  const result = normaliseCpfCnpj(raw);
  if (!result.ok) throw new ValidationFailed([`path.cpfCnpj: ${result.reason}`]);
  return result.value;
}
