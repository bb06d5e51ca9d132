/**
 * One page of a guarantee's signature records and their number, as the partner and back-office
 * APIs answer them: two reads through the driver adapter (database/direct-reads.ts), kept apart
 * from signatures.ts, whose records a write changes in its own transaction.
 */
import { readRows } from '../database/direct-reads';
import type { Queryable } from '../database/prisma-client';
import { Prisma } from '../generated/prisma/client';
import { toSignatureRecord, type SignatureRow } from './signatures';

export async function signaturePage(db: Queryable, rentalInsuranceId: bigint, page: { offset: number; size: number }) {
  const [counted] = await readRows<{ total: bigint }>(
    db,
    Prisma.sql`SELECT count(*)::int8 AS total FROM signatures WHERE rental_insurance_id = ${rentalInsuranceId}`,
  );
  const total = Number(counted!.total);
  if (page.offset >= total) return { rows: [], total };
  const rows = await readRows<SignatureRow>(
    db,
    Prisma.sql`SELECT id, role::text AS role, cpf_cnpj AS "cpfCnpj", name, url, status::text AS status, document_id AS "documentId"
      FROM signatures WHERE rental_insurance_id = ${rentalInsuranceId} ORDER BY id OFFSET ${page.offset} LIMIT ${page.size}`,
  );
  return { rows: rows.map(toSignatureRecord), total };
}
