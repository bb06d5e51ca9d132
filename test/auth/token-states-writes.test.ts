/**
 * Writes with a spoilt token (see token-states-reads.test.ts) are refused before anything else:
 * nothing written, no replay of a stored answer, the idempotency key left free; and a cached
 * principal dies with its token.
 */
import { hashAccessToken, newAccessToken } from '../../src/auth/opaque-secrets';
import { guaranteeBody, newKey } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { countGuarantees, storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { bearer, expectRefused, READ, tokenStates } from './spoilt-tokens';

const world = useTestApp();
const { agencyWithGuarantee, WRITE_TOKEN_STATES } = tokenStates(world);

describe.each(WRITE_TOKEN_STATES)('When a write is sent with %s', (_state, spoil, status, code) => {
  test(`then a create is ${status} ${code} and creates nothing, and its key stays free`, async () => {
    const { agency } = await agencyWithGuarantee();
    const key = newKey();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).create(guaranteeBody(), { key }), status, code);
    expect(await countGuarantees(world, agency)).toBe(1);
    expect(await world.db.idempotencyRecord.count({ where: { companyId: agency.companyId, key } })).toBe(0);
  });

  test(`then the retry of a create that succeeded is ${status}, not the stored response`, async () => {
    const agency = await world.newAgency();
    const key = newKey();
    const body = guaranteeBody();
    expect((await asPartner(world, agency).create(body, { key })).status).toBe(201);
    const spoilt = await spoil(agency);
    const retry = await asPartner(world, spoilt).create(body, { key });
    expectRefused(retry, status, code);
    expect(retry.headers['idempotent-replay']).toBeUndefined();
  });

  test(`then a patch is ${status}, even without If-Match or with a malformed body, and changes nothing`, async () => {
    const { agency, id } = await agencyWithGuarantee();
    const spoilt = await spoil(agency);
    expectRefused(await asPartner(world, spoilt).patch(id, { rentalAmount: 4321 }), status, code);
    expectRefused(await asPartner(world, spoilt).patch(id, { rentalAmount: 4321 }, { ifMatch: null }), status, code);
    expectRefused(await asPartner(world, spoilt).patch(id, '{not json'), status, code);
    expect(await storedVersion(world, id)).toBe(1);
  });
});

describe('When writes are sent with a valid token', () => {
  test('then the token checked with BEGIN names the creator, and a retry replays', async () => {
    const agency = await world.newAgency({ displayName: 'Deferred Check ERP' });
    const partner = asPartner(world, agency);
    const key = newKey();
    const body = guaranteeBody();
    const first = await partner.create(body, { key });
    expect(first.status).toBe(201);
    expect(first.body.creator).toEqual({ name: 'Deferred Check ERP', serviceAccount: true });
    const retry = await partner.create(body, { key });
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.text).toBe(first.text);
    const patched = await partner.patch(first.body.id, { rentalAmount: 4321 });
    expect(patched.status).toBe(200);
    expect(patched.body.rentalAmount).toBe(4321);
  });
});

describe('When a cached token reaches its expiry', () => {
  test('then the next request is 401: a cached principal dies with its token', async () => {
    const { agency, id } = await agencyWithGuarantee();
    const token = newAccessToken('sandbox');
    await world.db.accessToken.create({
      data: {
        tokenHash: hashAccessToken(token),
        credentialId: agency.credentialId,
        secretId: agency.secretId,
        companyId: agency.companyId,
        scopes: [READ],
        expiresAt: new Date(Date.now() + 1500),
      },
    });
    const shortLived = bearer(agency, token);
    expect((await asPartner(world, shortLived).get(id)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 1600));
    expectRefused(await asPartner(world, shortLived).get(id), 401, 'unauthorized');
  });
});
