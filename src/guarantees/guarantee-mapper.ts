/** Database rows to the contract's response shapes (every field present, null where unknown). */
import { decimalToNumber, toDateOnly, toTimestamp } from '../database/column-values';
import type { CoTenant, RentalInsurance } from '../generated/prisma/client';
import type { components } from '../generated/partner-api';

type Schemas = components['schemas'];
export type GuaranteeRow = RentalInsurance & { coTenants: CoTenant[] };

const PROPERTY_LABELS: Record<RentalInsurance['propertyType'], string> = {
  apartment: 'Apartment',
  house: 'House',
  commercial: 'Commercial',
};

export function toRentalInsurance(row: GuaranteeRow): Schemas['RentalInsurance'] {
  return {
    id: Number(row.id),
    externalId: row.externalId,
    status: row.status,
    creator: { name: row.creatorName, serviceAccount: row.creatorServiceAccount },
    tenant: {
      cpfCnpj: row.tenantCpfCnpj,
      name: row.tenantName,
      email: row.tenantEmail,
      birthDate: toDateOnly(row.tenantBirthDate),
      phoneNumber: row.tenantPhone,
      profession: row.tenantProfession,
    },
    coTenants: [...row.coTenants].sort((a, b) => Number(a.id - b.id)).map(toCoTenant),
    property: {
      externalId: row.propertyExternalId,
      type: { code: row.propertyType, description: PROPERTY_LABELS[row.propertyType] },
      address: {
        zipCode: row.addressZipCode,
        street: row.addressStreet,
        number: row.addressNumber,
        complement: row.addressComplement,
        neighborhood: row.addressNeighborhood,
        city: row.addressCity,
        state: row.addressState,
      },
    },
    rentalAmount: decimalToNumber(row.rentalAmount)!,
    condoFee: decimalToNumber(row.condoFee),
    propertyTax: decimalToNumber(row.propertyTax),
    otherFees: decimalToNumber(row.otherFees),
    installmentAmount: decimalToNumber(row.installmentAmount),
    setupFee: decimalToNumber(row.setupFee),
    coverageLimit: decimalToNumber(row.coverageLimit),
    rentCoverageLimit: decimalToNumber(row.rentCoverageLimit),
    remainingCoverageAmount: decimalToNumber(row.remainingCoverageAmount),
    rentRemainingCoverageAmount: decimalToNumber(row.rentRemainingCoverageAmount),
    startBillingDate: toDateOnly(row.startBillingDate),
    terminationDate: toDateOnly(row.terminationDate),
    createdAt: toTimestamp(row.createdAt),
    updatedAt: toTimestamp(row.updatedAt),
  };
}

export function toCoTenant(row: CoTenant): Schemas['CoTenant'] {
  return {
    cpfCnpj: row.cpfCnpj,
    name: row.name,
    email: row.email,
    birthDate: toDateOnly(row.birthDate),
    phoneNumber: row.phoneNumber,
  };
}
