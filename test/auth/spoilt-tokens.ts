/**
 * Tokens spoilt in each way the pipeline must refuse (unknown, expired, revoked after it was cached,
 * short of a scope), for the token-state tests of reads and writes.
 */
import type { Response } from 'supertest';
import { hashAccessToken, newAccessToken } from '../../src/auth/opaque-secrets';
import { expectErrorBody } from '../support/error-body';
import { issueToken, asPartner } from '../support/partner-api';
import type { Agency, TestApp } from '../support/test-app';

export const READ = 'ri:rental-insurances:read';
export const WRITE = 'ri:rental-insurances:write';

export type Spoil = (agency: Agency) => Promise<Agency>;
export type TokenState = [state: string, spoil: Spoil, status: number, code: string];

export const bearer = (agency: Agency, token: string): Agency => ({ ...agency, token, auth: { Authorization: `Bearer ${token}` } });

/** A 401 or 403 that gives nothing away: no guarantee, no page, no ETag. */
export function expectRefused(response: Response, status: number, code: string): void {
  expectErrorBody(response, status, code);
  expect(response.body).not.toHaveProperty('id');
  expect(response.body).not.toHaveProperty('_embedded');
  expect(response.headers['etag']).toBeUndefined();
  expect(response.headers['www-authenticate']).toMatch(/^Bearer realm="rental-guarantee"/);
}

export function tokenStates(t: TestApp) {
  /** An agency with one guarantee, both readable with its (still valid) token. */
  const agencyWithGuarantee = async (): Promise<{ agency: Agency; id: number; tenantCpf: string }> => {
    const agency = await t.newAgency();
    const partner = asPartner(t, agency);
    const guarantee = await partner.newGuarantee();
    expect((await partner.get(guarantee.id)).status).toBe(200);
    return { agency, id: guarantee.id, tenantCpf: guarantee.tenant.cpfCnpj as string };
  };

  /** The agency's own token (already used, so cached), revoked in the database: refused from the next request on. */
  const revoked =
    (revoke: (agency: Agency) => Promise<unknown>): Spoil =>
    async (agency) => {
      await revoke(agency);
      return agency;
    };
  /** A token of the agency's credential that expired a second ago. */
  const expired: Spoil = async (agency) => {
    const token = newAccessToken('sandbox');
    await t.db.accessToken.create({
      data: {
        tokenHash: hashAccessToken(token),
        credentialId: agency.credentialId,
        secretId: agency.secretId,
        companyId: agency.companyId,
        scopes: [READ, WRITE],
        expiresAt: new Date(Date.now() - 1000),
      },
    });
    return bearer(agency, token);
  };
  /** A new token of the agency's credential granted only `scope`. */
  const onlyScope =
    (scope: string): Spoil =>
    async (agency) =>
      bearer(agency, await issueToken(t, agency.clientId, agency.clientSecret, scope));

  const TOKEN_STATES: TokenState[] = [
    ['an unknown token', async (agency) => bearer(agency, 'sbx_at_0000000000000000000000000000000000000000000'), 401, 'unauthorized'],
    ['an expired token', expired, 401, 'unauthorized'],
    [
      'a cached token of a revoked credential',
      revoked((a) => t.db.credential.update({ where: { id: a.credentialId }, data: { revokedAt: new Date() } })),
      401,
      'unauthorized',
    ],
    [
      'a cached token of a revoked secret',
      revoked((a) => t.db.credentialSecret.update({ where: { id: a.secretId }, data: { revokedAt: new Date() } })),
      401,
      'unauthorized',
    ],
    ['a token without the read scope', onlyScope(WRITE), 403, 'insufficient_scope'],
  ];
  /** The same states for writes: the last one lacks the write scope instead. */
  const WRITE_TOKEN_STATES: TokenState[] = [
    ...TOKEN_STATES.slice(0, -1),
    ['a token without the write scope', onlyScope(READ), 403, 'insufficient_scope'],
  ];

  return { agencyWithGuarantee, TOKEN_STATES, WRITE_TOKEN_STATES };
}
