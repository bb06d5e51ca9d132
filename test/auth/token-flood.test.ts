/**
 * A real service process under a flood of wrong secrets: 20 keep-alive connections from 127.0.0.2
 * (half of them with the victim partner's own client ID, half with made-up IDs) while the partner
 * asks for tokens from 127.0.0.3, its usual address, and another partner from 127.0.0.4 (Linux
 * routes all of 127.0.0.0/8 to loopback, so these are real, distinct source addresses). The flood
 * is refused (its address fails at most its 20 allowed times, then is locked out) and both partners
 * get every token they ask for, while the flood runs and after its address is locked out. How long
 * their tokens take under the flood is a benchmark's figure: `BENCH_ONLY=token make bench`
 * (bench/token-flood.ts), not asserted here.
 */
import http from 'node:http';
import { startService, stopAllServices, type ServiceProcess } from '../support/service-process';
import { useTestApp } from '../support/test-app';
import { waitFor } from '../support/wait-for';
import { newCredential, postTokenFrom } from './token-harness';

const ATTACKER = '127.0.0.2';
const PARTNER = '127.0.0.3';
const OTHER_PARTNER = '127.0.0.4';
const FLOOD_CONNECTIONS = 20;

const t = useTestApp();
let service: ServiceProcess;
beforeAll(async () => {
  t.beforeClose(stopAllServices);
  service = await startService(t.databaseUrl); // default limits: 20 failures per address, 10 per client ID
}, 120_000);

/** `count` token requests one after the other; each must be a token. */
async function tokens(address: string, clientId: string, secret: string, count: number): Promise<void> {
  for (let index = 0; index < count; index++) {
    const answer = await postTokenFrom(service.origin, address, clientId, secret);
    expect(answer.status).toBe(200);
  }
}

test('When one address floods the token endpoint with wrong secrets, then the flood is refused and partners at other addresses get their tokens', async () => {
  const partner = await newCredential(t.db);
  const otherPartner = await newCredential(t.db);
  await tokens(PARTNER, partner.clientId, partner.clientSecret, 1); // the address becomes known for the partner

  const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
  const floodStatuses: number[] = [];
  let flooding = true;
  const connections = Array.from({ length: FLOOD_CONNECTIONS }, async (_, connection) => {
    for (let attempt = 0; flooding; attempt++) {
      const clientId = connection % 2 ? partner.clientId : `sbx_ci_guess${connection}x${attempt}`;
      const answer = await postTokenFrom(service.origin, ATTACKER, clientId, `sbx_cs_wrong${attempt}`, agent);
      floodStatuses.push(answer.status);
    }
  });
  try {
    // While the attacker's first failures are verified...
    await tokens(PARTNER, partner.clientId, partner.clientSecret, 3);
    // ...and once its address is locked out, every request of the flood answered 429 unseen.
    const refused = await waitFor(
      () => floodStatuses.filter((status) => status === 429).length,
      (locked) => locked >= FLOOD_CONNECTIONS,
      { withinMs: 60_000 },
    );
    expect(refused).toBeGreaterThanOrEqual(FLOOD_CONNECTIONS);
    await tokens(PARTNER, partner.clientId, partner.clientSecret, 3);
    await tokens(OTHER_PARTNER, otherPartner.clientId, otherPartner.clientSecret, 3);
  } finally {
    flooding = false;
    await Promise.all(connections);
    agent.destroy();
  }

  // The attacker's address failed at most its 20 allowed times; everything else was refused unseen.
  expect(floodStatuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
  expect(floodStatuses.filter((status) => status === 401).length).toBeLessThanOrEqual(20);
}, 120_000);
