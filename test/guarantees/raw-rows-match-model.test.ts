/**
 * The guarantee's statements are Prisma's tagged raw SQL (guarantee-columns.ts), and their rows are
 * cast to the model's type (`$queryRaw<GuaranteeRecord[]>`) without the compiler checking it. Here
 * the repository's read of a guarantee created through the API equals what Prisma's model API
 * returns for the same row, value by value and type by type (bigint, Decimal, Date, enums as text,
 * nulls, the co-tenants): a column whose raw value stops matching the model fails here.
 */
import { findGuarantee } from '../../src/guarantees/guarantee-repository';
import { guaranteeBody } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { completeRequest, CREATOR } from './complete-guarantee';

// No scheduler: nothing changes the row between the two reads.
const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: [{ displayName: CREATOR }] });
const partner = asPartner(world);

async function bothReadsOf(body: unknown) {
  const created = await partner.create(body);
  expect(created.status).toBe(201);
  const id = BigInt(created.body.id);
  const raw = await findGuarantee(world.db, world.agency.companyId, id);
  const model = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id }, include: { coTenants: { orderBy: { id: 'asc' } } } });
  return { raw, model };
}

describe('When the repository reads a guarantee with its raw statement', () => {
  test('then a complete one, co-tenants included, is exactly what the model API reads', async () => {
    const { raw, model } = await bothReadsOf(completeRequest());
    expect(model.coTenants.length).toBeGreaterThan(0);
    expect(raw).toStrictEqual(model);
  });

  test('then a minimal one, its optional fields null, is exactly what the model API reads', async () => {
    const { raw, model } = await bothReadsOf(guaranteeBody());
    expect(Object.values(model).filter((value) => value === null).length).toBeGreaterThan(0);
    expect(raw).toStrictEqual(model);
  });
});
