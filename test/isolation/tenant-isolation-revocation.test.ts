/**
 * Tokens of a revoked credential or of a revoked secret fail with 401 at once, on every operation of
 * openapi/partner.yaml, while the agency's other credentials and secrets keep working.
 */
import { issueSecret, STAFF_REACH } from '../../src/auth/credential-administration';
import { staffActor } from '../../src/auth/audit-log';
import { backOffice } from '../support/back-office';
import { errorBodyProblem } from '../support/contract-rules';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { nextCpf } from '../support/factories';
import { OPERATIONS, type OperationEntry } from '../support/operation-table';
import { validRequest, type Target } from '../support/operation-requests';
import { ANONYMOUS, asPartner, issueToken } from '../support/partner-api';
import type { Agency } from '../support/test-app';
import { useIsolationWorld } from './isolation-world';

const { world, send } = useIsolationWorld();

describe('Revoked credentials and secrets', () => {
  const secured = OPERATIONS.filter((entry) => entry.access !== 'public');

  /** A new agency with one guarantee of its own (approved, one co-tenant), and requests that work for it. */
  async function agencyWithGuarantee(companyId?: string) {
    const agency = await world.newAgency(companyId ? { companyId } : {});
    const coTenantCpfCnpj = nextCpf();
    const created = await asPartner(world, agency).newGuarantee({ coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Co' }] });
    await backOffice(world).approve(created.id);
    const { version } = await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } });
    return { agency, target: { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj } as Target };
  }

  async function expectEveryOperationRefused(agency: Agency, target: Target): Promise<void> {
    const before = await takeSnapshot(world.db);
    for (const entry of secured) {
      const response = await send(validRequest(entry, target, agency.auth.Authorization));
      expect({ operation: entry.operationId, status: response.status, code: response.body?.['code'], problem: errorBodyProblem(response) }).toEqual({
        operation: entry.operationId,
        status: 401,
        code: 'unauthorized',
        problem: null,
      });
      expect(response.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
    }
    expect(snapshotDifference(before, await takeSnapshot(world.db))).toEqual([]);
  }

  async function expectWorks(
    agency: Agency,
    target: Target,
    entry: OperationEntry = secured.find((candidate) => candidate.operationId === 'getRentalInsurance')!,
  ) {
    const response = await send(validRequest(entry, target, agency.auth.Authorization));
    expect(response.status).toBe(200);
  }

  test('a revoked credential: every operation answers 401 at once, and no new token is issued', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const sibling = await world.newAgency({ companyId: agency.companyId });
    await expectWorks(agency, target);
    await world.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    // Another credential of the same agency is not affected.
    await expectWorks(sibling, target);
    const refused = await asPartner(world, ANONYMOUS)
      .tokenRequest()
      .auth(agency.clientId, agency.clientSecret)
      .send({ grant_type: 'client_credentials' });
    expect(refused.status).toBe(401);
  });

  test('a revoked secret: its tokens answer 401 at once on every operation; a second active secret keeps working', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const second = await world.db.$transaction((tx) =>
      issueSecret(tx, 'sandbox', STAFF_REACH, agency.credentialId, staffActor('Isolation suite', 'cli')),
    );
    const tokenOfSecond = await issueToken(world, agency.clientId, second.clientSecret);
    await expectWorks(agency, target);
    await world.db.credentialSecret.update({ where: { id: agency.secretId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    await expect(issueToken(world, agency.clientId, agency.clientSecret)).rejects.toThrow(/401/);
    await expectWorks({ ...agency, token: tokenOfSecond, auth: { Authorization: `Bearer ${tokenOfSecond}` } }, target);
  });

  test('a revoked credential stops every token it issued, not only the latest', async () => {
    const { agency, target } = await agencyWithGuarantee();
    const second = await issueToken(world, agency.clientId, agency.clientSecret);
    await world.db.credential.update({ where: { id: agency.credentialId }, data: { revokedAt: new Date() } });
    await expectEveryOperationRefused(agency, target);
    await expectEveryOperationRefused({ ...agency, token: second, auth: { Authorization: `Bearer ${second}` } }, target);
  });
});
