/**
 * Credential administration by an agency's director: create, list, rotate and revoke the agency's
 * partner credentials (secret shown once); revocation stops tokens at once.
 */
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { ANONYMOUS, asPartner, issueToken, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { createViaApi as create, SECRET, type CredentialBody } from './agency-credentials';
import { newDirector, opsClient, useAgencyDirector } from './ops-support';

const world = useTestApp();
const agency = useAgencyDirector(world, 'Carlos Souza');
const { ops } = agency;

const createViaApi = (scopes?: string[], key?: string) => create(ops, scopes, key);
/** A partner API call with this token: 200, or 401 once the token is revoked. */
const listWith = (token: string) => asPartner(world, withAuthorization(`Bearer ${token}`)).list();

describe('When a director creates a credential', () => {
  test('then the secret is shown once, works at the token endpoint, and is never stored nor replayed', async () => {
    const key = newKey();
    const { response, credential, secret } = await createViaApi(undefined, key);
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.body).toEqual({
      credential: {
        id: credential.id,
        clientId: expect.stringMatching(/^sbx_ci_/),
        companyId: agency.companyId,
        kind: 'partner',
        displayName: 'ERP Imobiliária',
        personName: null,
        scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'],
        createdBy: 'director:Carlos Souza',
        createdAt: expect.any(String),
        revokedAt: null,
        secrets: [{ id: secret.id, createdAt: expect.any(String), revokedAt: null, lastUse: { at: null, address: null, tokensLast24h: 0 } }],
      },
      secret: { id: secret.id, clientSecret: expect.stringMatching(SECRET), createdAt: expect.any(String) },
    });
    const token = await issueToken(world, credential.clientId, secret.clientSecret);
    expect((await listWith(token)).status).toBe(200);

    const replay = await ops.post(
      '/v1/agency/credentials',
      { displayName: 'ERP Imobiliária', scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'] },
      key,
    );
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body.secret.clientSecret).toBeNull();
    expect(replay.body.credential.id).toBe(credential.id);
    expect(replay.text).not.toContain(secret.clientSecret);
    expect(await world.db.credential.count({ where: { companyId: agency.companyId, displayName: 'ERP Imobiliária', id: credential.id } })).toBe(1);
    const stored = await world.db.$queryRawUnsafe<Array<{ n: bigint }>>(
      `SELECT count(*) AS n FROM idempotency_records WHERE response_body LIKE '%' || $1 || '%'`,
      secret.clientSecret,
    );
    expect(Number(stored[0]!.n)).toBe(0);

    const list = await ops.get('/v1/agency/credentials');
    expect(list.status).toBe(200);
    expect(list.body._embedded.credentials.map((row: CredentialBody) => row.id)).toContain(credential.id);
    expect(list.text).not.toContain(secret.clientSecret);
  });

  test('then operations scopes, an unknown field or an empty scope list are 400', async () => {
    expectErrorBody(await ops.post('/v1/agency/credentials', { displayName: 'X', scopes: ['ops:ledger:write'] }), 400, 'validation_failed');
    expectErrorBody(await ops.post('/v1/agency/credentials', { displayName: 'X', scopes: [] }), 400, 'validation_failed');
    expectErrorBody(
      await ops.post('/v1/agency/credentials', { displayName: 'X', scopes: ['ri:financial:read'], companyId: 'other' }),
      400,
      'validation_failed',
    );
  });

  test("then a director sees and touches only the agency's partner credentials", async () => {
    const { credential } = await createViaApi();
    const other = await newDirector(world, (await world.newAgency()).companyId, 'Diretora Outra');
    const otherOps = opsClient(world, other);
    expect((await otherOps.get('/v1/agency/credentials')).body._embedded.credentials.map((row: CredentialBody) => row.id)).not.toContain(
      credential.id,
    );
    expectErrorBody(await otherOps.post(`/v1/agency/credentials/${credential.id}/revoke`), 404, 'not_found');
    expectErrorBody(await otherOps.post(`/v1/agency/credentials/${credential.id}/secrets`), 404, 'not_found');
    // Not even the director's own credential, nor staff ones, are in reach.
    expectErrorBody(await ops.post(`/v1/agency/credentials/${agency.director.credentialId}/revoke`), 404, 'not_found');
    expectErrorBody(await ops.post('/v1/agency/credentials/not-a-uuid/revoke'), 404, 'not_found');
    const own = (await ops.get('/v1/agency/credentials')).body._embedded.credentials as Array<{ kind: string; companyId: string }>;
    expect(own.every((row) => row.kind === 'partner' && row.companyId === agency.companyId)).toBe(true);
  });
});

describe('When a director rotates a secret', () => {
  test('then both secrets work until the old one is revoked, and its tokens fail at once', async () => {
    const { credential, secret: first } = await createViaApi();
    const oldToken = await issueToken(world, credential.clientId, first.clientSecret);

    const issued = await ops.post(`/v1/agency/credentials/${credential.id}/secrets`);
    expect(issued.status).toBe(201);
    const second = issued.body.secret as { id: string; clientSecret: string };
    expect(second.clientSecret).toMatch(SECRET);
    expect(issued.body.credential.secrets.map((s: { id: string }) => s.id)).toEqual([first.id, second.id]);
    const newToken = await issueToken(world, credential.clientId, second.clientSecret);
    expect((await listWith(oldToken)).status).toBe(200);
    expect((await listWith(newToken)).status).toBe(200);
    expect(await issueToken(world, credential.clientId, first.clientSecret)).toEqual(expect.any(String));

    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets`), 409, 'secret_limit_reached');

    const revoked = await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${first.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.secrets).toEqual([
      { id: first.id, createdAt: expect.any(String), revokedAt: expect.any(String), lastUse: expect.objectContaining({ tokensLast24h: 2 }) },
      { id: second.id, createdAt: expect.any(String), revokedAt: null, lastUse: expect.objectContaining({ tokensLast24h: 1 }) },
    ]);
    const rejected = await listWith(oldToken);
    expectErrorBody(rejected, 401, 'unauthorized');
    expect(rejected.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
    expect((await listWith(newToken)).status).toBe(200);
    const oldSecretToken = await asPartner(world, ANONYMOUS)
      .tokenRequest()
      .auth(credential.clientId, first.clientSecret)
      .send({ grant_type: 'client_credentials' });
    expect({ status: oldSecretToken.status, error: oldSecretToken.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${first.id}/revoke`), 409, 'already_revoked');
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${agency.director.secretId}/revoke`), 404, 'not_found');
  });

  test('then revoking the credential stops every token at once and no secret can be issued for it', async () => {
    const { credential, secret } = await createViaApi();
    const token = await issueToken(world, credential.clientId, secret.clientSecret);
    expect((await listWith(token)).status).toBe(200);
    const revoked = await ops.post(`/v1/agency/credentials/${credential.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.revokedAt).toEqual(expect.any(String));
    expect(revoked.body.secrets.every((s: { revokedAt: string | null }) => s.revokedAt !== null)).toBe(true);
    expectErrorBody(await listWith(token), 401, 'unauthorized');
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets`), 409, 'credential_revoked');
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/revoke`), 409, 'already_revoked');
  });
});
