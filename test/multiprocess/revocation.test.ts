/**
 * Two real service processes on one database, each with its own cache of token principals. A
 * credential revoked through one process's operations API is refused on the very next request by
 * both: the revocation's NOTIFY evicts the cached principal in every process at once.
 */
import { createStaffCredential } from '../../src/auth/credentials';
import { asPartner, issueToken } from '../support/partner-api';
import { call, startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp, type Agency } from '../support/test-app';

jest.setTimeout(60_000);

const world = useTestApp();
world.beforeClose(stopAllServices);
let services: ServiceProcess[];
beforeAll(async () => {
  services = await Promise.all([startService(world.databaseUrl), startService(world.databaseUrl)]);
}, 180_000);

const guaranteePath = (id: number) => `/v1/rental-insurances/${id}`;

/** A back-office write (the operations API lives beside the partner API, under /operations). */
async function revokeThrough(service: ServiceProcess, path: string, staffToken: string, key: string): Promise<number> {
  const response = await fetch(`${service.origin}/operations${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${staffToken}`, 'Idempotency-Key': key },
  });
  return response.status;
}

async function readFromBoth(agency: Agency, id: number): Promise<number[]> {
  return Promise.all(services.map(async (service) => (await call(service.origin, 'GET', guaranteePath(id), agency.auth)).status));
}

describe('When staff revoke a credential through one service process', () => {
  test('then its token, cached by both processes, is refused by both on the next request', async () => {
    const agency = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    expect(await readFromBoth(agency, id)).toEqual([200, 200]);
    expect(await readFromBoth(agency, id)).toEqual([200, 200]);

    const staff = await createStaffCredential(world.db, 'sandbox', {
      personName: 'Rita Suporte',
      scopes: ['ops:credentials:admin'],
      createdBy: 'test',
    });
    const [first, second] = services as [ServiceProcess, ServiceProcess];
    const staffToken = await issueToken(world, staff.clientId, staff.clientSecret);
    expect(await revokeThrough(first, `/v1/credentials/${agency.credentialId}/revoke`, staffToken, `revoke-${agency.credentialId}`)).toBe(200);

    const afterwards = await Promise.all([second, first].map((service) => call(service.origin, 'GET', guaranteePath(id), agency.auth)));
    for (const response of afterwards) {
      expect(response.status).toBe(401);
      expect(response.body?.['code']).toBe('unauthorized');
    }
  });

  test('then a revoked secret stops its tokens in both processes', async () => {
    const agency = await world.newAgency();
    const { id } = await asPartner(world, agency).newGuarantee();
    expect(await readFromBoth(agency, id)).toEqual([200, 200]);
    const staff = await createStaffCredential(world.db, 'sandbox', {
      personName: 'Rui Suporte',
      scopes: ['ops:credentials:admin'],
      createdBy: 'test',
    });
    const staffToken = await issueToken(world, staff.clientId, staff.clientSecret);
    const path = `/v1/credentials/${agency.credentialId}/secrets/${agency.secretId}/revoke`;
    expect(await revokeThrough(services[1]!, path, staffToken, `revoke-secret-${agency.secretId}`)).toBe(200);
    expect(await readFromBoth(agency, id)).toEqual([401, 401]);
  });
});
