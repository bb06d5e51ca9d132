/**
 * Production rules for webhook URLs: https only, and no loopback, private, link-local or metadata
 * address, at registration and again at delivery (the address connected to is checked, so a host
 * that later resolves to a private address is refused then).
 */
import { loadConfig } from '../../src/config';
import { useTestApp } from '../support/test-app';
import { startReceiver, webhookClient } from './webhook-support';

const KEY = Buffer.alloc(32, 9).toString('base64');
const world = useTestApp(
  {
    ENVIRONMENT: 'production',
    PUBLIC_ORIGIN: 'https://api.rentalguarantee.example',
    WEBHOOK_SECRET_KEY: KEY,
    WEBHOOK_DELIVERY_CONCURRENCY: '1',
    WEBHOOK_RETRY_SCHEDULE_MS: '60000',
    SCHEDULER_INTERVAL_MS: '0',
  },
  { agencies: 1 },
);
const hooks = webhookClient(world, () => world.agency);
const types = ['rental_insurance.status_changed'];

describe('When an agency registers an endpoint in production', () => {
  it.each([
    ['http (not https)', 'http://93.184.215.14/hooks', 'the URL must use https'],
    ['loopback', 'https://127.0.0.1/hooks', 'loopback address 127.0.0.1'],
    ['localhost', 'https://localhost:8443/hooks', 'loopback address'],
    ['IPv6 loopback', 'https://[::1]/hooks', 'loopback address ::1'],
    ['private (RFC 1918)', 'https://10.20.30.40/hooks', 'non-public address 10.20.30.40'],
    ['private 192.168', 'https://192.168.1.10/hooks', 'non-public address'],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data', 'non-public address 169.254.169.254'],
    ['IPv6 unique local', 'https://[fd12:3456::1]/hooks', 'non-public address'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hooks', 'address'],
    ['credentials in the URL', 'https://user:pw@93.184.215.14/hooks', 'credentials'],
  ])('then a %s URL is 400 webhook_url_refused and nothing is stored', async (_case, url, reason) => {
    const response = await hooks.create({ url, eventTypes: types });
    expect(response.status).toBe(400);
    expect(response.body.code).toBe('webhook_url_refused');
    expect(response.body.message).toContain(reason);
    expect(await world.db.webhookEndpoint.count()).toBe(0);
  });

  it('then a public https address is accepted, and its secret is stored encrypted', async () => {
    const created = await hooks.create({ url: 'https://93.184.215.14/hooks', eventTypes: types });
    expect(created.status).toBe(201);
    const row = await world.db.webhookEndpoint.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.secret).not.toContain(created.body.secret.slice(6));
    expect(row.secret).toMatch(/^v1\./);
    await hooks.remove(created.body.id);
  });

  it.each([
    ['a name that now resolves to loopback (DNS rebinding)', (port: string) => `https://localhost:${port}/hooks`, 'refused: loopback address'],
    ['an address literal', (port: string) => `https://127.0.0.1:${port}/hooks`, 'refused: loopback address 127.0.0.1'],
  ])('then an endpoint whose URL became %s is refused at delivery, and nothing reaches it', async (_case, urlAt, reason) => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const created = await hooks.create({ url: 'https://93.184.215.14/hooks', eventTypes: types });
    expect(created.status).toBe(201);
    // As if the host's DNS answer changed after registration: it now points at this machine.
    await world.db.webhookEndpoint.update({ where: { id: created.body.id }, data: { url: urlAt(new URL(receiver.url).port) } });
    const sent = await hooks.test(created.body.id);
    expect(sent.status).toBe(202);
    let attempts: Array<{ error: string | null; responseStatus: number | null }> = [];
    for (let i = 0; i < 50 && attempts.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      attempts = (await hooks.deliveries(created.body.id)).body._embedded.webhookDeliveries[0].attempts;
    }
    expect(attempts[0]).toMatchObject({ responseStatus: null, error: expect.stringContaining(reason) });
    expect(receiver.received).toEqual([]);
    await hooks.remove(created.body.id);
  });

  it('then production refuses to start without WEBHOOK_SECRET_KEY', () => {
    expect(() => loadConfig({ ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.com' })).toThrow(
      'WEBHOOK_SECRET_KEY is required in production',
    );
  });
});
