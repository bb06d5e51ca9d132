/**
 * A partner changes a guarantee with a JSON merge patch (RFC 7396): only the fields present
 * change, `null` clears an optional field. What the change does to the review and the contract is
 * the status machine's decision; a patch that changes nothing keeps the version.
 */
import type { UnitOfWork } from '../../database/unit-of-work';
import { applyChange, unchanged, type ChangeOutcome } from './guarantee-change';
import { MONEY_FIELDS, type ColumnValues } from '../guarantee-input';
import type { GuaranteeRow } from '../guarantee-mapper';
import type { Actor } from '../../auth/actors';
import { transition } from './status-machine';
import type { ContractIssuer } from '../documents/contract-issuer';

/**
 * `current` is the guarantee locked by the write's precondition, its version already checked;
 * `requested` the column values the patch asks for (its operation's normalise step, guarantee-input.ts);
 * `contracts` renders the contract a change reissues.
 */
export async function patchGuarantee(
  unit: UnitOfWork,
  actor: Actor,
  current: GuaranteeRow,
  requested: ColumnValues,
  contracts?: ContractIssuer,
): Promise<ChangeOutcome> {
  const changed = (Object.keys(requested) as Array<keyof typeof requested>).filter((column) => !sameValue(current, column, requested[column]!));
  const monetary = changed.some((column) => (MONEY_FIELDS as readonly string[]).includes(column));
  const contractual = changed.some((column) => column.startsWith('tenant') || column.startsWith('property') || column.startsWith('address'));
  const event = { type: 'partner_changed_data', monetary, contractual } as const;
  if (changed.length === 0) {
    transition(current.status, event); // a closed guarantee refuses even an empty patch
    return unchanged(current);
  }
  const data = Object.fromEntries(changed.map((column) => [column, requested[column]]));
  return applyChange(unit, current, {
    actor,
    event,
    data,
    historyKind: 'data_changed',
    note: `Changed: ${describeColumns(changed).join(', ')}.`,
    contracts,
  });
}

function sameValue(row: GuaranteeRow, column: string, next: string | Date | null): boolean {
  const current = (row as unknown as Record<string, unknown>)[column];
  if (current === null || next === null) return current === next;
  if (current instanceof Date && next instanceof Date) return current.getTime() === next.getTime();
  if (typeof current === 'object' && current !== null && 'toFixed' in current) {
    return (current as { toFixed(digits: number): string }).toFixed(2) === next;
  }
  return current === next;
}

const COLUMN_FIELDS: Record<string, string> = {
  tenantName: 'tenant.name',
  tenantEmail: 'tenant.email',
  tenantBirthDate: 'tenant.birthDate',
  tenantPhone: 'tenant.phoneNumber',
  tenantProfession: 'tenant.profession',
  propertyExternalId: 'property.externalId',
  propertyType: 'property.type',
  addressZipCode: 'property.address.zipCode',
  addressStreet: 'property.address.street',
  addressNumber: 'property.address.number',
  addressComplement: 'property.address.complement',
  addressNeighborhood: 'property.address.neighborhood',
  addressCity: 'property.address.city',
  addressState: 'property.address.state',
};

function describeColumns(columns: string[]): string[] {
  return columns.filter((column) => column !== 'tenantNameSearch').map((column) => COLUMN_FIELDS[column] ?? column);
}
