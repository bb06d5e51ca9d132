/**
 * Issue 37: staff with `ops:credentials:admin` revoke an agency's secret, then another agency's
 * credential, from the console (its *Credenciais (todas)* screen), at the HTTP level: the session
 * cookie, `X-Console-Request`, the page's Origin and an idempotency key, as the page sends them.
 * The revoked secret gets no token any more, its token stops at once, a replay answers the same,
 * and the audit log says who did it from the console.
 */
import request from 'supertest';
import { expectErrorBody } from '../support/error-body';
import { ANONYMOUS, asPartner, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { asConsole, signedInPerson } from './console-sessions';

const world = useTestApp({}, { agencies: 2 });

/** A token request with this client's secret (the partner's ERP asking for a token). */
const tokenWith = (clientId: string, clientSecret: string) =>
  asPartner(world, ANONYMOUS).tokenRequest().auth(clientId, clientSecret).send({ grant_type: 'client_credentials' });

interface AuditEntry {
  actor: string;
  action: string;
  companyId: string;
  details: Record<string, unknown>;
}

describe('When staff revoke agencies’ credentials from the console', () => {
  test('then a revoked secret gets no token, its token stops at once, and the audit log says it was done from the console', async () => {
    const agency = world.agencies[0]!;
    const admin = await signedInPerson(world, { kind: 'staff', name: 'Ana Admin', scopes: ['ops:credentials:admin'] });
    const page = asConsole(world, admin);
    const revokeSecret = `/back-office/v1/credentials/${agency.credentialId}/secrets/${agency.secretId}/revoke`;
    expect((await tokenWith(agency.clientId, agency.clientSecret)).status).toBe(200);

    // The credentials screen shows the agency's secret (never the secret itself).
    const listed = await page.get(`/back-office/v1/credentials?companyId=${agency.companyId}&kind=partner`);
    expect(listed.status).toBe(200);
    const row = (listed.body._embedded.credentials as Array<{ id: string; secrets: Array<{ id: string; revokedAt: string | null }> }>).find(
      (credential) => credential.id === agency.credentialId,
    );
    expect(row?.secrets).toEqual([expect.objectContaining({ id: agency.secretId, revokedAt: null })]);
    expect(listed.text).not.toContain(agency.clientSecret);

    // A form posted from another site cannot do it: no console header, then another Origin.
    expectErrorBody(
      await request(world.app).post(revokeSecret).set({ Cookie: admin.headers['Cookie']!, 'Idempotency-Key': 'forged-1' }),
      403,
      'cross_site_refused',
    );
    expectErrorBody(
      await request(world.app)
        .post(revokeSecret)
        .set({ ...admin.headers, Origin: 'https://evil.example', 'Idempotency-Key': 'forged-2' }),
      403,
      'cross_site_refused',
    );
    expect((await tokenWith(agency.clientId, agency.clientSecret)).status).toBe(200);

    const revoked = await page.post(revokeSecret, undefined, 'revoke-secret-1');
    expect(revoked.status).toBe(200);
    expect(revoked.headers['idempotent-replay']).toBe('false');
    expect(revoked.body).toMatchObject({ id: agency.credentialId, companyId: agency.companyId, revokedAt: null });
    expect(revoked.body.secrets).toEqual([expect.objectContaining({ id: agency.secretId, revokedAt: expect.any(String) })]);
    expect(revoked.text).not.toContain(agency.clientSecret);

    // The agency's ERP: the secret is refused at the token endpoint, and the token it held is 401.
    const refused = await tokenWith(agency.clientId, agency.clientSecret);
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectErrorBody(await asPartner(world, withAuthorization(`Bearer ${agency.token}`)).list(), 401, 'unauthorized');

    // A second click with the same key (a lost answer) replays it; a new one is 409 already_revoked.
    const replay = await page.post(revokeSecret, undefined, 'revoke-secret-1');
    expect({ status: replay.status, replayed: replay.headers['idempotent-replay'] }).toEqual({ status: 200, replayed: 'true' });
    expectErrorBody(await page.post(revokeSecret, undefined, 'revoke-secret-2'), 409, 'already_revoked');

    // The audit log, read from the console's Auditoria screen: one revocation, by the person, via the console.
    const log = await page.get(`/back-office/v1/audit-log?credentialId=${agency.credentialId}`);
    expect(log.status).toBe(200);
    const revocations = (log.body._embedded.auditLogEntries as AuditEntry[]).filter((entry) => entry.action === 'credential.secret_revoked');
    expect(revocations).toEqual([
      expect.objectContaining({
        actor: 'staff:Ana Admin',
        companyId: agency.companyId,
        details: expect.objectContaining({ via: 'console', actorClientId: `console:${admin.personId}`, secretId: agency.secretId }),
      }),
    ]);
    expect(log.text).not.toContain(agency.clientSecret);
  });

  test('then another agency’s whole credential is revoked: no token from it, its token refused, and the audit entry is the console’s', async () => {
    const agency = world.agencies[1]!;
    const admin = await signedInPerson(world, { kind: 'staff', name: 'Bruno Admin', scopes: ['ops:credentials:admin'] });
    const page = asConsole(world, admin);
    // A reviewer's session without ops:credentials:admin cannot.
    const reviewer = asConsole(world, await signedInPerson(world, { kind: 'staff', scopes: ['ops:guarantees:review'] }));
    expectErrorBody(await reviewer.post(`/back-office/v1/credentials/${agency.credentialId}/revoke`), 403, 'insufficient_scope');
    expect((await tokenWith(agency.clientId, agency.clientSecret)).status).toBe(200);

    const revoked = await page.post(`/back-office/v1/credentials/${agency.credentialId}/revoke`, undefined, 'revoke-credential-1');
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: agency.credentialId, companyId: agency.companyId, revokedAt: expect.any(String) });

    const refused = await tokenWith(agency.clientId, agency.clientSecret);
    expect({ status: refused.status, error: refused.body.error }).toEqual({ status: 401, error: 'invalid_client' });
    expectErrorBody(await asPartner(world, withAuthorization(`Bearer ${agency.token}`)).list(), 401, 'unauthorized');
    // The audit entry is in the revoked credential's agency, by the person, via the console.
    const entry = await world.db.auditLogEntry.findFirst({ where: { action: 'credential.revoked', credentialId: agency.credentialId } });
    expect(entry).toMatchObject({
      actor: 'staff:Bruno Admin',
      companyId: agency.companyId,
      details: expect.objectContaining({ via: 'console', actorClientId: `console:${admin.personId}`, clientId: agency.clientId }),
    });
  });
});
