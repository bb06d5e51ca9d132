/**
 * Webhook URLs in the sandbox (issue 23 items 6 and 7): loopback is a deployment setting
 * (WEBHOOK_ALLOW_LOOPBACK, on for `make start` and in this suite, off for a hosted sandbox), never
 * to the service's own ports; every refused URL gets the same answer whatever its host resolves to;
 * texts that `format: uri` accepts but no client can use are a 400, never a 500; and the URL's DNS
 * resolution runs before the write's transaction, so it holds no lock.
 */
import request from 'supertest';
import { API } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { startReceiver, webhookClient } from './webhook-support';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const hooks = webhookClient(world, () => world.agency);
const TYPES = ['rental_insurance.status_changed'];

/** The parts of an error body that do not change per request. */
const refusal = (response: request.Response) => ({
  status: response.status,
  code: response.body.code,
  message: response.body.message,
  details: response.body.details,
});

describe('When a URL is not one a client can use', () => {
  const ODD = ['https://1.1.1.1:99999/', 'https://', 'https:///', 'https://%00/', 'https://exa%20mple.com/', 'https://xn--/'];

  it.each(ODD)('then registering %s is 400 validation_failed naming the url', async (url) => {
    const response = await hooks.create({ url, eventTypes: TYPES });
    expect(response.status).toBe(400);
    expect(response.body.code).toMatch(/^(validation_failed|webhook_url_refused)$/);
    expect(response.body.details).toEqual([expect.stringMatching(/^url: /)]);
  });

  it.each(ODD)('then changing an endpoint to %s is 400 too', async (url) => {
    const endpoint = await hooks.register('http://127.0.0.1:9/hooks', TYPES);
    const response = await hooks.patch(endpoint.id, { url }, endpoint.etag);
    expect(response.status).toBe(400);
    expect(response.body.details).toEqual([expect.stringMatching(/^url: /)]);
    await hooks.remove(endpoint.id);
  });
});

describe('When loopback is allowed (a sandbox on the partner’s own machine)', () => {
  it('then a loopback receiver is accepted, but never one of the service’s own ports, each refused like any other URL', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const accepted = await hooks.create({ url: receiver.url, eventTypes: TYPES });
    expect(accepted.status).toBe(201);
    await hooks.remove(accepted.body.id);

    const databasePort = new URL(world.databaseUrl).port;
    const own = [world.config.PORT, world.config.METRICS_PORT, world.config.EMBEDDED_DB_PORT, databasePort].map(
      (port) => `http://127.0.0.1:${port}/`,
    );
    const others = ['http://10.0.0.7/hooks', 'http://does-not-resolve.invalid/hooks', 'http://[::127.0.0.1]:8080/hooks', 'http://93.184.215.14:22/'];
    const answers = await Promise.all(
      [...own, 'http://localhost:' + world.config.PORT + '/', ...others].map((url) => hooks.create({ url, eventTypes: TYPES })),
    );
    const first = refusal(answers[0]!);
    expect(first).toMatchObject({ status: 400, code: 'webhook_url_refused' });
    for (const answer of answers) expect(refusal(answer)).toEqual(first);
    expect(JSON.stringify(first)).not.toMatch(/127\.0\.0\.1|::1|10\.0\.0\.7|resolve/);
  });
});

describe('When loopback is not allowed (a hosted sandbox)', () => {
  it('then a loopback URL is refused with the very answer of an address that does not resolve', async () => {
    const hosted = await world.anotherApp({ WEBHOOK_ALLOW_LOOPBACK: 'false', SCHEDULER_INTERVAL_MS: '0' });
    const create = (url: string) =>
      request(hosted.app)
        .post(`${API}/v1/webhook-endpoints`)
        .set(world.agency.auth)
        .set('Idempotency-Key', `${Math.random()}`)
        .send({ url, eventTypes: TYPES });
    const answers = await Promise.all(
      ['http://127.0.0.1:8080/hooks', 'http://localhost:8080/', 'http://does-not-resolve.invalid/', 'http://192.168.0.1/'].map(create),
    );
    const first = refusal(answers[0]!);
    expect(first).toMatchObject({ status: 400, code: 'webhook_url_refused' });
    expect(first.details).toEqual(['url: must be http or https on port 80, 443, 8080 or 8443, with a host whose every address is public']);
    for (const answer of answers) expect(refusal(answer)).toEqual(first);
  });
});

describe('When an endpoint is locked by another write', () => {
  it('then a PATCH whose URL is refused answers while the lock is still held: the URL was checked before the transaction', async () => {
    const endpoint = await hooks.register('http://127.0.0.1:9/hooks', TYPES);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = world.db.$transaction(
      async (tx) => {
        await tx.$queryRaw`SELECT 1 FROM webhook_endpoints WHERE id = ${endpoint.id}::uuid FOR UPDATE`;
        locked();
        await released;
      },
      { timeout: 30_000 },
    );
    let holderEnded = false;
    void holder.finally(() => (holderEnded = true)).catch(() => undefined);
    await isLocked;
    try {
      const response = await hooks.patch(endpoint.id, { url: 'http://does-not-resolve.invalid/hooks' }, endpoint.etag);
      expect(response.status).toBe(400);
      expect(response.body.code).toBe('webhook_url_refused');
      // Answered while the other write still holds the row (a PATCH that waited for the lock could
      // only have been answered once the holder's transaction ended, by its timeout).
      expect(holderEnded).toBe(false);
    } finally {
      release();
      await holder;
    }
  });
});

describe('When a registration that succeeded is retried after its URL became one the service refuses', () => {
  it('then the retry replays the stored 201 (the URL check waits for the key to show the write is new), and a new key is refused', async () => {
    const receiver = await startReceiver();
    world.beforeClose(() => receiver.close());
    const body = { url: receiver.url, eventTypes: TYPES };
    const first = await hooks.create(body, 'register-then-refused');
    expect(first.status).toBe(201);

    // The operator turns loopback off (another process of the same deployment, same database).
    const hosted = await world.anotherApp({ WEBHOOK_ALLOW_LOOPBACK: 'false' });
    const onHosted = webhookClient(hosted, () => world.agency);
    const retry = await onHosted.create(body, 'register-then-refused');
    expect(retry.status).toBe(201);
    expect(retry.headers['idempotent-replay']).toBe('true');
    expect(retry.body.id).toBe(first.body.id);

    const fresh = await onHosted.create(body, 'register-after-refusal');
    expect(fresh.status).toBe(400);
    expect(fresh.body.code).toBe('webhook_url_refused');
    expect((await hooks.list()).body._embedded.webhookEndpoints.filter((endpoint: { url: string }) => endpoint.url === receiver.url)).toHaveLength(1);
  });
});
