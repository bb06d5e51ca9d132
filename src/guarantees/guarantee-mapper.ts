/**
 * Between the contract's shapes and the database's rows: a path's guarantee id as the database's
 * int8, and rows as the contract's response shapes (every field present, null where unknown): the
 * guarantee, its co-tenants, its history entries and their documents.
 */
import { decimalToNumber, toDateOnly, toTimestamp } from '../database/column-values';
import { rentalInsuranceNotFound } from '../errors';
import type { CoTenant, RentalInsurance } from '../generated/prisma/client';
import type { components } from '../generated/partner-api';
import type { Status } from './transitions/status-machine';

type Schemas = components['schemas'];
export type GuaranteeRow = RentalInsurance & { coTenants: CoTenant[] };

/** The path id as the database's int8; the pipeline has checked it is a positive integer in canonical form. */
export function guaranteeId(id: number): bigint {
  if (!Number.isSafeInteger(id) || id < 1) throw rentalInsuranceNotFound();
  return BigInt(id);
}

export const STATUS_LABELS: Record<Status, string> = {
  under_review: 'Under review',
  information_requested: 'Information requested',
  approved: 'Approved',
  declined: 'Declined',
  expired: 'Expired',
  accepted: 'Accepted',
  declined_by_tenant: 'Declined by tenant',
  active: 'Active',
  terminated: 'Terminated',
  archived: 'Archived',
};

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

/** What a history entry shows a partner (its id and guarantee are not shown). */
export interface ShownHistoryEntry {
  creatorName: string;
  creatorServiceAccount: boolean;
  comment: string | null;
  previousStatus: Status | null;
  status: Status;
  createdAt: Date;
  documents: DocumentRow[];
}

const statusObject = (status: Status | null) => ({ code: status, description: status ? STATUS_LABELS[status] : null });

export function toHistoryEntry(row: ShownHistoryEntry): components['schemas']['HistoryEntry'] {
  return {
    creator: { name: row.creatorName, serviceAccount: row.creatorServiceAccount },
    comment: row.comment,
    previousStatus: statusObject(row.previousStatus),
    status: statusObject(row.status),
    documents: row.documents.map(toDocument),
    createdAt: toTimestamp(row.createdAt),
  };
}

/** A document row as the contract's `Document` (partner and back-office documents share the shape). */
export interface DocumentRow {
  id: bigint;
  fileName: string | null;
  contentType: string;
  size: bigint | number;
  sha256: string;
  createdAt: Date;
  creatorName: string;
  creatorServiceAccount: boolean;
}

export type DocumentShape = components['schemas']['Document'];

export function toDocument(row: DocumentRow): DocumentShape {
  return {
    id: Number(row.id),
    fileName: row.fileName,
    contentType: row.contentType as DocumentShape['contentType'],
    size: Number(row.size),
    sha256: row.sha256,
    createdAt: row.createdAt.toISOString(),
    creator: { name: row.creatorName, serviceAccount: row.creatorServiceAccount },
  };
}
