/**
 * Credential administration by staff: they list and revoke any agency's credentials but never
 * create one nor see a secret; every action, by director or staff, is in the audit log.
 */
import { expectErrorBody } from '../support/error-body';
import { ANONYMOUS, asPartner, issueToken, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { createViaApi as create } from './agency-credentials';
import { newDirector, newStaff, opsClient, useAgencyDirector } from './ops-support';

const world = useTestApp();
const agency = useAgencyDirector(world, 'Carlos Souza');
const { ops } = agency;

const createViaApi = (scopes?: string[], key?: string) => create(ops, scopes, key);
/** A partner API call with this token: 200, or 401 once the token is revoked. */
const listWith = (token: string) => asPartner(world, withAuthorization(`Bearer ${token}`)).list();

describe('When staff administer credentials', () => {
  test('then staff can neither create a credential nor issue (and so see) a secret', async () => {
    const admin = await newStaff(world, { name: 'Ana Admin', scopes: ['ops:credentials:admin'] });
    const staffOps = opsClient(world, admin);
    const { credential } = await createViaApi();
    const create = await staffOps.post('/v1/agency/credentials', { displayName: 'Rogue', scopes: ['ri:rental-insurances:read'] });
    expectErrorBody(create, 403, 'insufficient_scope');
    expect(create.headers['www-authenticate']).toContain('scope="ops:credentials:manage"');
    expectErrorBody(await staffOps.post(`/v1/agency/credentials/${credential.id}/secrets`), 403, 'insufficient_scope');
    // A staff credential that somehow held the director's scope (the database only checks the ri:/ops:
    // prefixes) still never gets it in a token: scopes are granted only to the kind they belong to.
    await world.db.credential.update({ where: { id: admin.credentialId }, data: { scopes: ['ops:credentials:admin', 'ops:credentials:manage'] } });
    const asked = await asPartner(world, ANONYMOUS)
      .tokenRequest()
      .auth(admin.clientId, admin.clientSecret)
      .send({ grant_type: 'client_credentials', scope: 'ops:credentials:manage' });
    expect({ status: asked.status, error: asked.body.error }).toEqual({ status: 400, error: 'invalid_scope' });
    const all = await asPartner(world, ANONYMOUS).tokenRequest().auth(admin.clientId, admin.clientSecret).send({ grant_type: 'client_credentials' });
    expect(all.body.scope).toBe('ops:credentials:admin');
    // And even a token carrying it (a hand-edited row) is refused: the handler checks the credential's kind.
    await world.db.accessToken.updateMany({ where: { credentialId: admin.credentialId }, data: { scopes: ['ops:credentials:manage'] } });
    expectErrorBody(
      await staffOps.post('/v1/agency/credentials', { displayName: 'Rogue', scopes: ['ri:rental-insurances:read'] }),
      403,
      'insufficient_scope',
    );
    expect(await world.db.credential.count({ where: { displayName: 'Rogue' } })).toBe(0);
  });

  test('then staff list any agency (never a secret), read one, and revoke secrets and credentials with immediate effect', async () => {
    const admin = await newStaff(world, { name: 'Ana Admin', scopes: ['ops:credentials:admin'] });
    const staffOps = opsClient(world, admin);
    const { credential, secret } = await createViaApi();
    const token = await issueToken(world, credential.clientId, secret.clientSecret);

    const list = await staffOps.get(`/v1/credentials?companyId=${agency.companyId}&kind=partner`);
    expect(list.status).toBe(200);
    const rows = list.body._embedded.credentials as Array<{ id: string; companyId: string; kind: string }>;
    expect(rows.map((row) => row.id)).toContain(credential.id);
    expect(rows.every((row) => row.companyId === agency.companyId && row.kind === 'partner')).toBe(true);
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
    const otherToken = await issueToken(world, other.credential.clientId, other.secret.clientSecret);
    expect((await staffOps.post(`/v1/credentials/${other.credential.id}/revoke`)).status).toBe(200);
    expectErrorBody(await listWith(otherToken), 401, 'unauthorized');
    // Staff can revoke a director's credential too; its token stops at once.
    const doomed = await newDirector(world, agency.companyId, 'Diretor Saindo');
    expect((await staffOps.post(`/v1/credentials/${doomed.credentialId}/revoke`)).status).toBe(200);
    expectErrorBody(await opsClient(world, doomed).get('/v1/agency/credentials'), 401, 'unauthorized');
  });

  test('then a director token and a partner token cannot use the staff endpoints', async () => {
    expectErrorBody(await ops.get('/v1/credentials'), 403, 'insufficient_scope');
    expectErrorBody(await ops.get('/v1/audit-log'), 403, 'insufficient_scope');
    const partner = await world.newAgency({ companyId: agency.companyId });
    expectErrorBody(await opsClient(world, partner).get('/v1/agency/credentials'), 403, 'insufficient_scope');
    expectErrorBody(await opsClient(world, partner).get('/v1/credentials'), 403, 'insufficient_scope');
    // And a director token on the partner API is 403 as well.
    expectErrorBody(await listWith(agency.director.token), 403, 'insufficient_scope');
  });
});

describe('When anyone acts on credentials', () => {
  test('then every action is in the audit log with who and when', async () => {
    const admin = await newStaff(world, { name: 'Ana Auditora', scopes: ['ops:credentials:admin'] });
    const { credential, secret } = await createViaApi();
    const issued = await ops.post(`/v1/agency/credentials/${credential.id}/secrets`);
    await ops.post(`/v1/agency/credentials/${credential.id}/secrets/${secret.id}/revoke`);
    await opsClient(world, admin).post(`/v1/credentials/${credential.id}/revoke`);

    const log = await opsClient(world, admin).get(`/v1/audit-log?credentialId=${credential.id}`);
    expect(log.status).toBe(200);
    const entries = log.body._embedded.auditLogEntries as Array<{
      actor: string;
      action: string;
      companyId: string;
      details: Record<string, unknown>;
      createdAt: string;
    }>;
    expect(entries.map((entry) => [entry.action, entry.actor])).toEqual([
      ['credential.revoked', 'staff:Ana Auditora'],
      ['credential.secret_revoked', 'director:Carlos Souza'],
      ['credential.secret_issued', 'director:Carlos Souza'],
      ['credential.created', 'director:Carlos Souza'],
    ]);
    expect(entries.every((entry) => entry.companyId === agency.companyId && !Number.isNaN(Date.parse(entry.createdAt)))).toBe(true);
    expect(entries[0]!.details).toMatchObject({ via: 'back-office-api', actorClientId: admin.clientId, clientId: credential.clientId });
    expect(entries[1]!.details).toMatchObject({ secretId: secret.id, actorClientId: agency.director.clientId });
    expect(entries[2]!.details).toMatchObject({ secretId: issued.body.secret.id });
    expect(log.text).not.toContain(secret.clientSecret);
    expect(log.text).not.toContain(issued.body.secret.clientSecret);

    const filtered = await opsClient(world, admin).get(`/v1/audit-log?companyId=${agency.companyId}&action=credential.created&pageSize=1`);
    expect(filtered.body.page).toMatchObject({ size: 1, number: 0 });
    expect(filtered.body._embedded.auditLogEntries).toHaveLength(1);
    expect(filtered.body._links.next.href).toContain('action=credential.created');
  });
});
