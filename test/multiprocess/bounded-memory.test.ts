/**
 * No request can exhaust the service's memory: a guarantee with 3,000 comments answers its history
 * in bounded pages, 20 parallel reads of it grow a real service process's resident memory by less
 * than 100 MB (unbounded answers of ~5.4 MB each, parsed and serialised at once, would add several
 * hundred), and another agency keeps being served meanwhile. The growth is measured, not the total:
 * the test's process runs the TypeScript sources under tsx, whose transpiler and Node 24's larger
 * start-up heap put its idle size at 250-330 MB (247 MB on Node 20, 326 MB on Node 24 with pg-boss
 * and the Scalar page).
 */
import fs from 'node:fs';
import { asPartner } from '../support/partner-api';
import { call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';

jest.setTimeout(120_000);

const world = useTestApp();
world.beforeClose(stopAllServices);
let service: ServiceProcess;
beforeAll(async () => {
  service = await startService(world.databaseUrl);
}, 180_000);

const residentMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

describe('When a guarantee holds 3,000 comments and 20 partners read its history at once', () => {
  test('then every answer is a bounded page, another agency is served meanwhile, and the process grows by less than 100 MB', async () => {
    const agency = await world.newAgency();
    const other = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    const { id: othersId } = await asPartner(world, other).newGuarantee();
    const comment = 'Comentário longo do parceiro. '.repeat(60); // ~1.8 KB each: ~5.4 MB of comments in all
    await world.db.historyEntry.createMany({
      data: Array.from({ length: 3000 }, () => ({
        rentalInsuranceId: BigInt(id),
        kind: 'comment',
        creatorName: agency.displayName,
        creatorServiceAccount: true,
        comment,
        status: 'under_review' as const,
      })),
    });

    const idle = residentMb(service.pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMb(service.pid))), 20);
    try {
      const reads = Array.from({ length: 20 }, (_, index) =>
        call(service.origin, 'GET', `/v1/rental-insurances/${id}/history?page=${index}&pageSize=${index % 2 === 0 ? 200 : 1000}`, agency.auth),
      );
      const others = Array.from({ length: 10 }, () => call(service.origin, 'GET', `/v1/rental-insurances/${othersId}`, other.auth));
      const [pages, otherAnswers] = await Promise.all([Promise.all(reads), Promise.all(others)]);
      for (const [index, page] of pages.entries()) {
        expect(page.status).toBe(200);
        const body = page.body as { _embedded: { historyEntries: unknown[] }; page: { size: number; totalElements: number; number: number } };
        // Both sizes asked for are clamped to the history's maximum page: 50 entries (1 MiB at their longest).
        expect(body.page).toMatchObject({ size: 50, totalElements: 3001, number: index });
        expect(body._embedded.historyEntries.length).toBeLessThanOrEqual(50);
        expect(page.text.length).toBeLessThan(600_000);
      }
      expect(otherAnswers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    } finally {
      clearInterval(sampler);
    }
    expect(peak - idle).toBeLessThan(100);
  });
});
