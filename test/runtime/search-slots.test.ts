/**
 * A name search holds one of its credential's RATE_LIMIT_SEARCH_CONCURRENCY slots (and one of the
 * process's) until its answer is over. A client that hangs up while its search is being admitted
 * (token check, quota) must not keep the slot: leaked slots would refuse the credential's searches
 * for good (429), and, summed over credentials, every agency's (503).
 */
import net from 'node:net';
import { API, asPartner } from '../support/partner-api';
import { listen, type Listening } from '../support/raw-http';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ RATE_LIMIT_REQUESTS: '100000', RATE_LIMIT_SEARCH_CONCURRENCY: '2' }, { agencies: 1 });
let server: Listening;
beforeAll(async () => {
  server = await listen(world.app);
  world.beforeClose(() => server.close());
});

/** Sends a name search and hangs up after `afterMs` (0: as soon as it is written), without reading the answer. */
function searchAndHangUp(afterMs: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = net.connect(server.port, '127.0.0.1', () => {
      socket.write(
        `GET ${API}/v1/rental-insurances?tenantName=maria HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${world.agency.auth.Authorization}\r\n\r\n`,
      );
      setTimeout(() => socket.destroy(), afterMs);
    });
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

describe('When clients hang up in the middle of their name searches', () => {
  it('then the searches that follow are admitted: no slot is kept by a search whose client left', async () => {
    for (let round = 0; round < 60; round++) await searchAndHangUp(round % 6);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const partner = asPartner(world);
    const statuses: number[] = [];
    for (let call = 0; call < 3; call++) statuses.push((await partner.list({ tenantName: 'maria' })).status);
    expect(statuses).toEqual([200, 200, 200]);
  });
});
