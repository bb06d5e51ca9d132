/**
 * The trigram index behind `tenantName` keeps its pending list short (migration
 * 20261125010000_name_search_pending_list): every name search reads that list in full, so an
 * agency's creates must not grow it to megabytes between vacuums.
 */
import { guaranteeBody, withTenant } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const partner = asPartner(world);

const PAGE_BYTES = 8192;
const PENDING_LIST_LIMIT_BYTES = 512 * 1024;

async function pendingPages(): Promise<number> {
  await world.db.$executeRaw`CREATE EXTENSION IF NOT EXISTS pgstattuple`;
  const [stats] = await world.db.$queryRaw<Array<{ pending: number }>>`
    SELECT pending_pages AS pending FROM pgstatginindex('rental_insurances_tenant_name_search_trgm_idx')`;
  return stats!.pending;
}

// Long names, many trigrams each: a few hundred creates are enough to pass the limit several times.
const longName = (n: number) => `Tenant ${n} ${'Aparecida Conceição Albuquerque Figueiredo Vasconcelos '.repeat(3)}ref zx${n}q`;

describe('When an agency creates many guarantees', () => {
  test('then the name search index keeps its pending list within 512 kB and finds the newest tenant', async () => {
    const creates = 700;
    for (let batch = 0; batch < creates; batch += 10) {
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, offset) => partner.create(guaranteeBody(withTenant({ name: longName(batch + offset) })))),
      );
      expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(201));
    }
    expect(await pendingPages()).toBeLessThanOrEqual(PENDING_LIST_LIMIT_BYTES / PAGE_BYTES);

    const found = await partner.list({ tenantName: `zx${creates - 1}q` });
    expect(found.status).toBe(200);
    expect(found.body.page.totalElements).toBe(1);
    expect(found.body._embedded.rentalInsurances[0].tenant.name).toBe(longName(creates - 1));
  }, 120_000);
});
