/**
 * The back office sees an agency's webhook endpoints and deliveries (never a secret) and can
 * disable an endpoint, through the back-office API and the admin tool; deliveries then stop.
 */
import { webhookCommands } from '../../src/back-office/cli/webhook-commands';
import { runAdminTool } from '../support/admin-tool';
import { asPartner } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { useStaff } from '../back-office/ops-support';
import request from 'supertest';
import { ENDPOINTS, startReceiver, webhookClient } from './webhook-support';
import { waitFor } from '../support/wait-for';

// As in test/back-office/cli.test.ts: with DATABASE_URL set the tool never starts an embedded
// server, and Jest's CommonJS sandbox cannot load that ESM-only module.
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));
jest.setTimeout(120_000);

const runAdmin = (args: string[]) => runAdminTool(world.databaseUrl, webhookCommands, args);

/** The admin tool with --json, which must succeed; returns its parsed output. */
async function admin(...args: string[]): Promise<any> {
  const { code, printed } = await runAdmin([...args, '--json']);
  expect(code).toBe(0);
  return JSON.parse(printed);
}
const world = useTestApp({ WEBHOOK_DELIVERY_CONCURRENCY: '2', WEBHOOK_RETRY_SCHEDULE_MS: '200,200', SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const { ops } = useStaff(world);
const partner = asPartner(world);
const hooks = webhookClient(world, () => world.agency);

describe('When staff look after an agency’s webhooks', () => {
  it('then they list its endpoints and deliveries, and disabling an endpoint stops its deliveries', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed']);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 1);

    const list = await ops.get(`/v1/webhook-endpoints?companyId=${world.agency.companyId}`);
    expect(list.status).toBe(200);
    expect(list.body._embedded.webhookEndpoints).toEqual([
      expect.objectContaining({ id: endpoint.id, companyId: world.agency.companyId, enabled: true, url: receiver.url }),
    ]);
    expect(list.text).not.toContain('whsec_');
    const deliveries = await waitFor(
      () => ops.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries`),
      (answer) => answer.body._embedded?.webhookDeliveries[0]?.status === 'succeeded',
      { withinMs: 3_000, everyMs: 100 },
    );
    expect(deliveries.status).toBe(200);
    expect(deliveries.body._embedded.webhookDeliveries[0]).toMatchObject({ status: 'succeeded', eventType: 'rental_insurance.status_changed' });

    const disabled = await ops.post(`/v1/webhook-endpoints/${endpoint.id}/disable`);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ enabled: false, disabledReason: 'operator' });
    expect((await hooks.get(endpoint.id)).body).toMatchObject({ enabled: false, disabledReason: 'operator' });
    const audit = await ops.get(`/v1/audit-log?companyId=${world.agency.companyId}&action=webhook_endpoint.disabled`);
    expect(audit.body._embedded.auditLogEntries).toHaveLength(1);
    await partner.newGuarantee();
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.received).toHaveLength(1);
    expect((await ops.get(`/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/deliveries`)).status).toBe(404);
    expect((await ops.post(`/v1/webhook-endpoints/00000000-0000-4000-8000-000000000000/disable`)).status).toBe(404);
  });

  it('then the admin tool lists the endpoints and disables one', async () => {
    const endpoint = await hooks.register('http://127.0.0.1:9/hooks', ['statement_entry.created']);
    const listed = await admin('webhooks', 'list', '--company', world.agency.companyId);
    expect(listed.items.map((item: { id: string }) => item.id)).toContain(endpoint.id);
    const disabled = await admin('webhooks', 'disable', '--endpoint', endpoint.id, '--staff', 'Ana Revisora');
    expect(disabled).toMatchObject({ id: endpoint.id, enabled: false, disabledReason: 'operator' });
  });

  it('then the admin tool shows an endpoint’s deliveries and their attempts as the partner sees them, never a secret', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed']);
    receiver.script.push(500);
    await partner.newGuarantee();
    const [first] = await receiver.waitFor((all) => all.length >= 2);

    const listed = await waitFor(
      () => admin('webhooks', 'deliveries', '--endpoint', endpoint.id),
      (answer) => answer.items[0]?.status === 'succeeded',
      { withinMs: 3_000, everyMs: 100 },
    );
    expect(listed).toMatchObject({
      total: 1,
      items: [
        {
          eventId: first!.event.id,
          eventType: 'rental_insurance.status_changed',
          status: 'succeeded',
          nextAttemptAt: null,
          attempts: [
            { responseStatus: 500, error: 'HTTP 500' },
            { responseStatus: 200, error: null },
          ],
        },
      ],
    });
    expect(listed.items).toEqual((await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries);

    const text = await runAdmin(['webhooks', 'deliveries', '--endpoint', endpoint.id]);
    expect(text.code).toBe(0);
    expect(text.printed.split('\n')).toEqual([
      '1 delivery; latest 1:',
      `${listed.items[0].createdAt}  succeeded rental_insurance.status_changed      500,200`,
    ]);
    for (const output of [JSON.stringify(listed), text.printed]) expect(output).not.toContain('whsec_');

    const unknown = await runAdmin(['webhooks', 'deliveries', '--endpoint', '00000000-0000-4000-8000-000000000000', '--json']);
    expect(unknown.code).toBe(1);
    expect(JSON.parse(unknown.printed)).toEqual({ error: 'not_found', message: 'Webhook endpoint not found.' });
    expect((await runAdmin(['webhooks', 'deliveries', '--json'])).code).toBe(2);
  });

  it('then they page through a delivery’s attempts as the partner does, and another endpoint’s delivery is 404', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const endpoint = await hooks.register(receiver.url, ['rental_insurance.status_changed']);
    receiver.script.push(500, 503);
    await partner.newGuarantee();
    await receiver.waitFor((all) => all.length >= 3);
    const [delivery] = (await hooks.deliveries(endpoint.id)).body._embedded.webhookDeliveries;
    const path = `/v1/webhook-endpoints/${endpoint.id}/deliveries/${delivery.id}/attempts`;
    const page = await waitFor(
      () => ops.get(`${path}?pageSize=2`),
      (answer) => answer.body.page?.totalElements === 3,
      { withinMs: 3_000, everyMs: 100 },
    );
    expect(page.status).toBe(200);
    expect(page.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 0 });
    expect(page.body._embedded.webhookAttempts).toMatchObject([
      { responseStatus: 500, error: 'HTTP 500' },
      { responseStatus: 503, error: 'HTTP 503' },
    ]);
    const last = await ops.get(`${path}?pageSize=2&page=1`);
    expect(last.body._embedded.webhookAttempts).toEqual([expect.objectContaining({ responseStatus: 200, error: null })]);
    const partnerView = await request(world.app)
      .get(`${ENDPOINTS}${path.slice('/v1/webhook-endpoints'.length)}`)
      .set(world.agency.auth);
    expect([...page.body._embedded.webhookAttempts, ...last.body._embedded.webhookAttempts]).toEqual(partnerView.body._embedded.webhookAttempts);
    expect(page.text).not.toContain('whsec_');

    const other = await hooks.register('http://127.0.0.1:9/other', ['rental_insurance.status_changed']);
    expect((await ops.get(`/v1/webhook-endpoints/${other.id}/deliveries/${delivery.id}/attempts`)).status).toBe(404);
    expect((await ops.get(`/v1/webhook-endpoints/${endpoint.id}/deliveries/00000000-0000-4000-8000-000000000000/attempts`)).status).toBe(404);
  });
});
