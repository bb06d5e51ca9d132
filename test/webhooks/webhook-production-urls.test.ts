/**
 * Production rules for webhook URLs: https on port 443 or 8443 only, and no loopback, private,
 * link-local, metadata, 6to4, Teredo or site-local address, at registration and again at delivery
 * (the address connected to is checked, so a host that later resolves to a private address is
 * refused then). Every refusal is the same answer, whatever the host resolves to (issue 23 items 6, 7).
 */
import { loadConfig } from '../../src/config';
import { REFUSED_AT_DELIVERY } from '../../src/webhooks/url-safety';
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
  const PRODUCTION_RULE = 'url: must be https on port 443 or 8443, with a host whose every address is public';
  it.each([
    ['http (not https)', 'http://93.184.215.14/hooks'],
    ['loopback', 'https://127.0.0.1/hooks'],
    ['localhost', 'https://localhost:8443/hooks'],
    ['IPv6 loopback', 'https://[::1]/hooks'],
    ['IPv4-compatible loopback', 'https://[::127.0.0.1]/hooks'],
    ['private (RFC 1918)', 'https://10.20.30.40/hooks'],
    ['private 192.168', 'https://192.168.1.10/hooks'],
    ['link-local metadata', 'https://169.254.169.254/latest/meta-data'],
    ['IPv6 unique local', 'https://[fd12:3456::1]/hooks'],
    ['IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hooks'],
    ['6to4 (2002::/16)', 'https://[2002:7f00:1::1]/hooks'],
    ['Teredo (2001::/32)', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hooks'],
    ['site-local (fec0::/10)', 'https://[fec0::1]/hooks'],
    ['6to4 relay anycast', 'https://192.88.99.1/hooks'],
    ['credentials in the URL', 'https://user:pw@93.184.215.14/hooks'],
    ['port 22', 'https://93.184.215.14:22/hooks'],
    ['port 5432', 'https://93.184.215.14:5432/hooks'],
    ['port 80 over https', 'https://93.184.215.14:80/hooks'],
    ['a host that does not resolve', 'https://does-not-resolve.invalid/hooks'],
  ])('then a %s URL is 400 webhook_url_refused with the one refusal of every URL, and nothing is stored', async (_case, url) => {
    const response = await hooks.create({ url, eventTypes: types });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({
      code: 'webhook_url_refused',
      message: 'This URL cannot receive webhooks here (see Webhooks: addresses).',
      details: [PRODUCTION_RULE],
    });
    expect(await world.db.webhookEndpoint.count()).toBe(0);
  });

  it('then a public https address on port 8443 is accepted', async () => {
    const created = await hooks.create({ url: 'https://93.184.215.14:8443/hooks', eventTypes: types });
    expect(created.status).toBe(201);
    await hooks.remove(created.body.id);
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
    ['a name that now resolves to loopback (DNS rebinding)', (port: string) => `https://localhost:${port}/hooks`, REFUSED_AT_DELIVERY],
    ['an address literal', (port: string) => `https://127.0.0.1:${port}/hooks`, REFUSED_AT_DELIVERY],
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
    expect(attempts[0]).toMatchObject({ responseStatus: null, error: reason });
    expect(receiver.received).toEqual([]);
    await hooks.remove(created.body.id);
  });

  it('then production refuses to start with WEBHOOK_ALLOW_LOOPBACK', () => {
    expect(() =>
      loadConfig({ ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.com', WEBHOOK_SECRET_KEY: KEY, WEBHOOK_ALLOW_LOOPBACK: 'true' }),
    ).toThrow('WEBHOOK_ALLOW_LOOPBACK is for the sandbox only');
  });

  it('then production refuses to start without WEBHOOK_SECRET_KEY', () => {
    expect(() => loadConfig({ ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.com' })).toThrow(
      'WEBHOOK_SECRET_KEY is required in production',
    );
  });
});
