/**
 * Two real service processes on one database, each with its own cache of token principals. A
 * credential revoked through one process's back-office API is refused by both on the very next
 * request: the revocation's NOTIFY (sent at COMMIT) evicts the cached principal in every process,
 * and a cached principal is served only once a round trip on the listening connection has proved
 * that every notification committed before the request arrived has been applied. A third process
 * reaches PostgreSQL through a proxy that holds the notification back, as a slow network would:
 * the request waits for it rather than being served from the cache.
 */
import { createStaffCredential } from '../../src/auth/credentials';
import { startHoldingProxy, type HoldingProxy } from '../support/holding-proxy';
import { asPartner, issueToken } from '../support/partner-api';
import { call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp, type Agency } from '../support/test-app';

jest.setTimeout(60_000);

const world = useTestApp();
world.beforeClose(stopAllServices);
let services: ServiceProcess[];
let proxy: HoldingProxy;
let behindProxy: ServiceProcess;
beforeAll(async () => {
  proxy = await startHoldingProxy(world.databaseUrl);
  world.beforeClose(() => proxy.close());
  [behindProxy, ...services] = await Promise.all([startService(proxy.databaseUrl), startService(world.databaseUrl), startService(world.databaseUrl)]);
}, 180_000);

const guaranteePath = (id: number) => `/v1/rental-insurances/${id}`;

/** A back-office write (the back-office API lives beside the partner API, under /back-office). */
async function revokeThrough(service: ServiceProcess, path: string, staffToken: string, key: string): Promise<number> {
  const response = await fetch(`${service.origin}/back-office${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${staffToken}`, 'Idempotency-Key': key },
  });
  return response.status;
}

async function readThrough(targets: ServiceProcess[], agency: Agency, id: number) {
  return Promise.all(targets.map((service) => call(service.origin, 'GET', guaranteePath(id), agency.auth)));
}

async function staffToken(personName: string): Promise<string> {
  const staff = await createStaffCredential(world.db, 'sandbox', { personName, scopes: ['ops:credentials:admin'], createdBy: 'test' });
  return issueToken(world, staff.clientId, staff.clientSecret);
}

describe('When staff revoke a credential through one service process', () => {
  test('then its token, cached by both processes, is refused by both on the very next request', async () => {
    const agency = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    for (let read = 0; read < 2; read++) expect((await readThrough(services, agency, id)).map((answer) => answer.status)).toEqual([200, 200]);

    const [first] = services as [ServiceProcess, ServiceProcess];
    const token = await staffToken('Rita Suporte');
    expect(await revokeThrough(first, `/v1/credentials/${agency.credentialId}/revoke`, token, `revoke-${agency.credentialId}`)).toBe(200);

    const afterwards = await readThrough(services, agency, id);
    for (const response of afterwards) {
      expect(response.status).toBe(401);
      expect(response.body?.['code']).toBe('unauthorized');
    }
  });

  test('then a revoked secret stops its tokens in both processes on the very next request', async () => {
    const agency = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    expect((await readThrough(services, agency, id)).map((answer) => answer.status)).toEqual([200, 200]);
    const path = `/v1/credentials/${agency.credentialId}/secrets/${agency.secretId}/revoke`;
    expect(await revokeThrough(services[1]!, path, await staffToken('Rui Suporte'), `revoke-secret-${agency.secretId}`)).toBe(200);
    expect((await readThrough(services, agency, id)).map((answer) => answer.status)).toEqual([401, 401]);
  });
});

describe('When the revocation notification is held back on its way to a process', () => {
  test('then that process does not serve the token from its cache: the request waits for the notification and is refused', async () => {
    const agency = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    for (let read = 0; read < 2; read++) expect((await readThrough([behindProxy], agency, id))[0]!.status).toBe(200);

    const token = await staffToken('Rosa Suporte');
    proxy.hold();
    const HELD_MS = 500;
    let answer: Awaited<ReturnType<typeof call>>;
    let waitedMs: number;
    try {
      expect(await revokeThrough(services[0]!, `/v1/credentials/${agency.credentialId}/revoke`, token, `revoke-held-${agency.credentialId}`)).toBe(
        200,
      );
      const started = Date.now();
      const pending = call(behindProxy.origin, 'GET', guaranteePath(id), agency.auth).then((response) => {
        waitedMs = Date.now() - started;
        return response;
      });
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      proxy.release();
      answer = await pending;
    } finally {
      proxy.release();
    }
    expect(answer.status).toBe(401);
    expect(answer.body?.['code']).toBe('unauthorized');
    // Answered only once the held bytes (the notification first) were let through.
    expect(waitedMs!).toBeGreaterThanOrEqual(HELD_MS - 20);
  });
});
