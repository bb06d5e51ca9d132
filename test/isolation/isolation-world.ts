/**
 * The world of the tenant isolation suites: agencies A and B (B with a guarantee of its own, so
 * that "nothing found" is never just an empty database) and the app listening on a loopback port
 * for the raw client, which sends every operation exactly as the operation table builds it.
 */
import { backOffice } from '../support/back-office';
import { guaranteeBody, nextCpf } from '../support/factories';
import type { Target } from '../support/operation-requests';
import { asPartner } from '../support/partner-api';
import { listen, rawRequest, type Listening, type RawRequest } from '../support/raw-http';
import { useTestApp } from '../support/test-app';

export function useIsolationWorld() {
  const world = useTestApp({}, { agencies: [{ displayName: 'Agency A ERP' }, { displayName: 'Agency B ERP' }] });
  const agencyA = () => world.agencies[0]!;
  const agencyB = () => world.agencies[1]!;
  let server: Listening | undefined;
  beforeAll(async () => {
    server = await listen(world.app);
    world.beforeClose(() => server?.close());
    await asPartner(world, agencyB).newGuarantee();
  });

  /** A's guarantee in the state where every id-bearing operation succeeds: approved, with a co-tenant. */
  async function approvedGuaranteeOfA(): Promise<Target> {
    const coTenantCpfCnpj = nextCpf();
    const created = await asPartner(world, agencyA).newGuarantee({
      coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Co Tenant of A' }],
      tenant: { ...(guaranteeBody()['tenant'] as object), name: 'Maria Isolada' },
    });
    await backOffice(world).approve(created.id);
    const { version } = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
    return { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj };
  }

  return {
    world,
    agencyA,
    agencyB,
    approvedGuaranteeOfA,
    send: (built: RawRequest) => {
      if (!server) throw new Error('useIsolationWorld: the app listens once beforeAll ran');
      return rawRequest(server.origin, built);
    },
  };
}
