/**
 * What the database holds, read and set directly: the assertions that a request wrote (or did not
 * write) something, and statuses that only reviewers reach (no partner endpoint sets them).
 */
import type { Status } from '../../src/guarantees/transitions/status-machine';
import type { Agency, TestApp } from './test-app';

/** Moves a guarantee to a status directly in the database. */
export async function setStatus(t: TestApp, id: number, status: Status): Promise<void> {
  await t.db.rentalInsurance.update({ where: { id: BigInt(id) }, data: { status } });
}

export const countGuarantees = (t: TestApp, agency?: Agency) => t.db.rentalInsurance.count({ where: agency ? { companyId: agency.companyId } : {} });

export const countIdempotencyRecords = (t: TestApp, agency?: Agency) =>
  t.db.idempotencyRecord.count({ where: agency ? { companyId: agency.companyId } : {} });

export async function storedVersion(t: TestApp, id: number): Promise<number> {
  const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { version: true } });
  return row.version;
}
