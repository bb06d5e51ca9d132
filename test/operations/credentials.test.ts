/**
 * Credential administration: a director creates, lists, rotates and revokes the agency's partner
 * credentials (secret shown once); staff list and revoke any agency's credentials but never create
 * one nor see a secret; revocation stops tokens at once; every action is in the audit log.
 */
import request from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { API, issueToken, startTestApp, TOKEN_PATH, type TestApp } from '../support/test-app';
import { newDirector, newStaff, opsClient, type Operator } from './ops-support';

let t: TestApp;
let director: Operator;
let ops: ReturnType<typeof opsClient>;
let companyId: string;
beforeAll(async () => {
  t = await startTestApp();
  companyId = (await t.newAgency()).companyId;
  director = await newDirector(t, companyId, 'Carlos Souza');
  ops = opsClient(t, director);
});
afterAll(() => t.close());

const SECRET = /^sbx_cs_[A-Za-z0-9_-]{43}$/;

interface CredentialBody {
  id: string;
  clientId: string;
  secrets: Array<{ id: string; revokedAt: string | null }>;
  revokedAt: string | null;
}

async function createViaApi(scopes = ['ri:rental-insurances:read', 'ri:rental-insurances:write'], key = newKey()) {
  const response = await ops.post('/v1/agency/credentials', { displayName: 'ERP Imobiliária', scopes }, key);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return { response, credential: response.body.credential as CredentialBody, secret: response.body.secret as { id: string; clientSecret: string } };
}

/** A partner API call with this token: 200, or 401 once the token is revoked. */
const listWith = (token: string) => request(t.app).get(`${API}/v1/rental-insurances`).set('Authorization', `Bearer ${token}`);

describe('When a director creates a credential', () => {
  test('then the secret is shown once, works at the token endpoint, and is never stored nor replayed', async () => {
    const key = newKey();
    const { response, credential, secret } = await createViaApi(undefined, key);
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.body).toEqual({
      credential: {
        id: credential.id,
        clientId: expect.stringMatching(/^sbx_ci_/),
        companyId,
        kind: 'partner',
        displayName: 'ERP Imobiliária',
        personName: null,
        scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'],
        createdBy: 'director:Carlos Souza',
        createdAt: expect.any(String),
        revokedAt: null,
        secrets: [{ id: secret.id, createdAt: expect.any(String), revokedAt: null }],
      },
      secret: { id: secret.id, clientSecret: expect.stringMatching(SECRET), createdAt: expect.any(String) },
    });
    const token = await issueToken(t.app, credential.clientId, secret.clientSecret);
    expect((await listWith(token)).status).toBe(200);

    const replay = await ops.post('/v1/agency/credentials', { displayName: 'ERP Imobiliária', scopes: ['ri:rental-insurances:read', 'ri:rental-insurances:write'] }, key);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.body.secret.clientSecret).toBeNull();
    expect(replay.body.credential.id).toBe(credential.id);
    expect(replay.text).not.toContain(secret.clientSecret);
    expect(await t.db.credential.count({ where: { companyId, displayName: 'ERP Imobiliária', id: credential.id } })).toBe(1);
    const stored = await t.db.$queryRawUnsafe<Array<{ n: bigint }>>(
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
    expectErrorBody(await ops.post('/v1/agency/credentials', { displayName: 'X', scopes: ['ri:financial:read'], companyId: 'other' }), 400, 'validation_failed');
  });

  test("then a director sees and touches only the agency's partner credentials", async () => {
    const { credential } = await createViaApi();
    const other = await newDirector(t, (await t.newAgency()).companyId, 'Diretora Outra');
    const otherOps = opsClient(t, other);
    expect((await otherOps.get('/v1/agency/credentials')).body._embedded.credentials.map((row: CredentialBody) => row.id)).not.toContain(credential.id);
    expectErrorBody(await otherOps.post(`/v1/agency/credentials/${credential.id}/revoke`), 404, 'not_found');
    expectErrorBody(await otherOps.post(`/v1/agency/credentials/${credential.id}/secrets`), 404, 'not_found');
    // Not even the director's own credential, nor staff ones, are in reach.
    expectErrorBody(await ops.post(`/v1/agency/credentials/${director.credentialId}/revoke`), 404, 'not_found');
    expectErrorBody(await ops.post('/v1/agency/credentials/not-a-uuid/revoke'), 404, 'not_found');
    const own = (await ops.get('/v1/agency/credentials')).body._embedded.credentials as Array<{ kind: string; companyId: string }>;
    expect(own.every((row) => row.kind === 'partner' && row.companyId === companyId)).toBe(true);
  });
});

describe('When a director rotates a secret', () => {
  test('then both secrets work until the old one is revoked, and its tokens fail at once', async () => {
    const { credential, secret: first } = await createViaApi();
    const oldToken = await issueToken(t.app, credential.clientId, first.clientSecret);

    const issued = await ops.post(`/v1/agency/credentials/${credential.id}/secrets`);
    expect(issued.status).toBe(201);
    const second = issued.body.secret as { id: string; clientSecret: string };
    expect(second.clientSecret).toMatch(SECRET);
    expect(issued.body.credential.secrets.map((s: { id: string }) => s.id)).toEqual([first.id, second.id]);
    const newToken = await issueToken(t.app, credential.clientId, second.clientSecret);
    expect((await listWith(oldToken)).status).toBe(200);
    expect((await listWith(newToken)).status).toBe(200);
    expect(await issueToken(t.app, credential.clientId, first.clientSecret)).toEqual(expect.any(String));

    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets`), 409, 'secret_limit_reached');

    const revoked = await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${first.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.secrets).toEqual([
      { id: first.id, createdAt: expect.any(String), revokedAt: expect.any(String) },
      { id: second.id, createdAt: expect.any(String), revokedAt: null },
    ]);
    const rejected = await listWith(oldToken);
    expectErrorBody(rejected, 401, 'unauthorized');
    expect(rejected.headers['www-authenticate']).toBe('Bearer realm="rental-guarantee", error="invalid_token"');
    expect((await listWith(newToken)).status).toBe(200);
    const oldSecretToken = await request(t.app).post(TOKEN_PATH).auth(credential.clientId, first.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect({ status: oldSecretToken.status, error: oldSecretToken.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${first.id}/revoke`), 409, 'already_revoked');
    expectErrorBody(await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${director.secretId}/revoke`), 404, 'not_found');
  });

  test('then revoking the credential stops every token at once and no secret can be issued for it', async () => {
    const { credential, secret } = await createViaApi();
    const token = await issueToken(t.app, credential.clientId, secret.clientSecret);
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

describe('When staff administer credentials', () => {
  test('then staff can neither create a credential nor issue (and so see) a secret', async () => {
    const admin = await newStaff(t, { name: 'Ana Admin', scopes: ['ops:credentials:admin'] });
    const staffOps = opsClient(t, admin);
    const { credential } = await createViaApi();
    const create = await staffOps.post('/v1/agency/credentials', { displayName: 'Rogue', scopes: ['ri:rental-insurances:read'] });
    expectErrorBody(create, 403, 'insufficient_scope');
    expect(create.headers['www-authenticate']).toContain('scope="ops:credentials:manage"');
    expectErrorBody(await staffOps.post(`/v1/agency/credentials/${credential.id}/secrets`), 403, 'insufficient_scope');
    // A staff credential that somehow held the director's scope (the database only checks the ri:/ops:
    // prefixes) still never gets it in a token: scopes are granted only to the kind they belong to.
    await t.db.credential.update({ where: { id: admin.credentialId }, data: { scopes: ['ops:credentials:admin', 'ops:credentials:manage'] } });
    const asked = await request(t.app)
      .post(TOKEN_PATH)
      .auth(admin.clientId, admin.clientSecret)
      .type('form')
      .send({ grant_type: 'client_credentials', scope: 'ops:credentials:manage' });
    expect({ status: asked.status, error: asked.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    const all = await request(t.app).post(TOKEN_PATH).auth(admin.clientId, admin.clientSecret).type('form').send({ grant_type: 'client_credentials' });
    expect(all.body.scope).toBe('ops:credentials:admin');
    // And even a token carrying it (a hand-edited row) is refused: the handler checks the credential's kind.
    await t.db.accessToken.updateMany({ where: { credentialId: admin.credentialId }, data: { scopes: ['ops:credentials:manage'] } });
    expectErrorBody(await staffOps.post('/v1/agency/credentials', { displayName: 'Rogue', scopes: ['ri:rental-insurances:read'] }), 403, 'insufficient_scope');
    expect(await t.db.credential.count({ where: { displayName: 'Rogue' } })).toBe(0);
  });

  test('then staff list any agency (never a secret), read one, and revoke secrets and credentials with immediate effect', async () => {
    const admin = await newStaff(t, { name: 'Ana Admin', scopes: ['ops:credentials:admin'] });
    const staffOps = opsClient(t, admin);
    const { credential, secret } = await createViaApi();
    const token = await issueToken(t.app, credential.clientId, secret.clientSecret);

    const list = await staffOps.get(`/v1/credentials?companyId=${companyId}&kind=partner`);
    expect(list.status).toBe(200);
    const rows = list.body._embedded.credentials as Array<{ id: string; companyId: string; kind: string }>;
    expect(rows.map((row) => row.id)).toContain(credential.id);
    expect(rows.every((row) => row.companyId === companyId && row.kind === 'partner')).toBe(true);
    expect(list.text).not.toContain(secret.clientSecret);
    expect(list.text).not.toMatch(/scrypt|secretHash|clientSecret/);
    const all = await staffOps.get('/v1/credentials?kind=staff');
    expect(all.body._embedded.credentials.map((row: { id: string }) => row.id)).toContain(admin.credentialId);
    const one = await staffOps.get(`/v1/credentials/${credential.id}`);
    expect(one.body.id).toBe(credential.id);
    expect(one.text).not.toMatch(/clientSecret|scrypt/);

    const revokedSecret = await staffOps.post(`/v1/credentials/${credential.id}/secrets/${secret.id}/revoke`);
    expect(revokedSecret.status).toBe(200);
    expectErrorBody(await listWith(token), 401, 'unauthorized');

    const other = await createViaApi();
    const otherToken = await issueToken(t.app, other.credential.clientId, other.secret.clientSecret);
    expect((await staffOps.post(`/v1/credentials/${other.credential.id}/revoke`)).status).toBe(200);
    expectErrorBody(await listWith(otherToken), 401, 'unauthorized');
    // Staff can revoke a director's credential too; its token stops at once.
    const doomed = await newDirector(t, companyId, 'Diretor Saindo');
    expect((await staffOps.post(`/v1/credentials/${doomed.credentialId}/revoke`)).status).toBe(200);
    expectErrorBody(await opsClient(t, doomed).get('/v1/agency/credentials'), 401, 'unauthorized');
  });

  test('then a director token and a partner token cannot use the staff endpoints', async () => {
    expectErrorBody(await ops.get('/v1/credentials'), 403, 'insufficient_scope');
    expectErrorBody(await ops.get('/v1/audit-log'), 403, 'insufficient_scope');
    const partner = await t.newAgency({ companyId });
    expectErrorBody(await opsClient(t, partner).get('/v1/agency/credentials'), 403, 'insufficient_scope');
    expectErrorBody(await opsClient(t, partner).get('/v1/credentials'), 403, 'insufficient_scope');
    // And a director token on the partner API is 403 as well.
    expectErrorBody(await listWith(director.token), 403, 'insufficient_scope');
  });
});

describe('When anyone acts on credentials', () => {
  test('then every action is in the audit log with who and when', async () => {
    const admin = await newStaff(t, { name: 'Ana Auditora', scopes: ['ops:credentials:admin'] });
    const { credential, secret } = await createViaApi();
    const issued = await ops.post(`/v1/agency/credentials/${credential.id}/secrets`);
    await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${secret.id}/revoke`);
    await opsClient(t, admin).post(`/v1/credentials/${credential.id}/revoke`);

    const log = await opsClient(t, admin).get(`/v1/audit-log?credentialId=${credential.id}`);
    expect(log.status).toBe(200);
    const entries = log.body._embedded.auditLogEntries as Array<{ actor: string; action: string; companyId: string; details: Record<string, unknown>; createdAt: string }>;
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ['credential.revoked', 'staff:Ana Auditora'],
      ['credential.secret_revoked', 'director:Carlos Souza'],
      ['credential.secret_issued', 'director:Carlos Souza'],
      ['credential.created', 'director:Carlos Souza'],
    ]);
    expect(entries.every((entry) => entry.companyId === companyId && !Number.isNaN(Date.parse(entry.createdAt)))).toBe(true);
    expect(entries[0]!.details).toMatchObject({ via: 'operations-api', actorClientId: admin.clientId, clientId: credential.clientId });
    expect(entries[1]!.details).toMatchObject({ secretId: secret.id, actorClientId: director.clientId });
    expect(entries[2]!.details).toMatchObject({ secretId: issued.body.secret.id });
    expect(log.text).not.toContain(secret.clientSecret);
    expect(log.text).not.toContain(issued.body.secret.clientSecret);

    const filtered = await opsClient(t, admin).get(`/v1/audit-log?companyId=${companyId}&action=credential.created&pageSize=1`);
    expect(filtered.body.page).toMatchObject({ size: 1, number: 0 });
    expect(filtered.body._embedded.auditLogEntries).toHaveLength(1);
    expect(filtered.body._links.next.href).toContain('action=credential.created');
  });
});
