/** A document row as the contract's `Document` (partner and back-office documents share the shape). */
import type { components } from '../../generated/partner-api';

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
