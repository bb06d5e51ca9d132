/**
 * The token endpoint under a flood (the figures test/auth/token-flood.test.ts used to bound; the
 * test keeps the behaviour: the flood is refused, the partners get their tokens). Against the built
 * service started as `npm start` starts it, with the default limits:
 *   - a partner's token latency alone, then under a flood of wrong secrets from another address
 *     (FLOOD_CONNECTIONS keep-alive connections, half with the partner's own client ID), from the
 *     flood's first request on (while its failures are verified, then while its address is locked
 *     out), and another partner's from a third address;
 *   - an unknown client ID against a wrong secret of a known one (no timing oracle: both cost one
 *     scrypt verification; test/auth/token-malformed.test.ts counts the verifications), interleaved.
 * Source addresses are real loopback addresses (Linux routes all of 127.0.0.0/8 to loopback); the
 * flood's is new on every run, since its lockout is kept in the database for TOKEN_LOCKOUT_SECONDS.
 * `BENCH_ONLY=token` runs only this; `BENCH_TOKEN=0` leaves it out.
 */
import http from 'node:http';
import { randomInt } from 'node:crypto';
import { createCredential, type CreatedCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { createDatabaseClient } from '../src/database/prisma-client';
import { log } from './measure';
import { median } from './median';
import { startService } from './processes';
import type { BenchDatabase } from './setup';

const PORT = 3799;
const FLOOD_CONNECTIONS = 20;
const TOKEN_PATH = '/auth/oauth2/token';

export interface TokenFlood {
  aloneMs: number[];
  underFloodMs: number[];
  otherUnderFloodMs: number[];
  flood: { requests: number; seconds: number; statuses: Record<number, number> };
  unknownIdMs: number[];
  wrongSecretMs: number[];
}

interface Answer {
  status: number;
  ms: number;
}

/** POST a token request over a socket bound to `localAddress`. */
function postTokenFrom(origin: string, localAddress: string, clientId: string, secret: string, agent?: http.Agent): Promise<Answer> {
  const started = performance.now();
  const form = 'grant_type=client_credentials';
  const basic = Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(secret)}`).toString('base64');
  return new Promise((resolve, reject) => {
    const outgoing = http.request(
      `${origin}${TOKEN_PATH}`,
      {
        method: 'POST',
        localAddress,
        agent,
        headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Length': form.length },
      },
      (incoming) => {
        incoming.resume();
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, ms: performance.now() - started }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(form);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomLoopback = () => `127.${randomInt(1, 255)}.${randomInt(1, 255)}.${randomInt(2, 255)}`;

async function newCredentials(url: string, count: number): Promise<CreatedCredential[]> {
  const db = createDatabaseClient(url, { poolMax: 1 });
  try {
    const created: CreatedCredential[] = [];
    for (let index = 0; index < count; index++) {
      created.push(
        await createCredential(db, 'production', {
          companyId: `bench-token-${index}`,
          displayName: 'bench token flood',
          scopes: [...SCOPES],
          createdBy: 'bench',
        }),
      );
    }
    return created;
  } finally {
    await db.$disconnect();
  }
}

export async function measureTokenFlood(bench: BenchDatabase, baseEnv: Record<string, string>): Promise<TokenFlood> {
  const origin = `http://127.0.0.1:${PORT}`;
  const [partner, otherPartner, probed] = (await newCredentials(bench.url, 3)) as [CreatedCredential, CreatedCredential, CreatedCredential];
  const service = await startService(
    { ...baseEnv, PORT: String(PORT), PUBLIC_ORIGIN: origin, SCHEDULER_INTERVAL_MS: '0', WEBHOOK_DELIVERY_CONCURRENCY: '0' },
    `${origin}/health/ready`,
  );
  try {
    const [attacker, partnerAddress, otherAddress] = [randomLoopback(), randomLoopback(), randomLoopback()];
    const timed = async (address: string, credential: CreatedCredential, count: number, pauseMs = 0) => {
      const times: number[] = [];
      for (let index = 0; index < count; index++) {
        if (index > 0) await sleep(pauseMs);
        const answer = await postTokenFrom(origin, address, credential.clientId, credential.clientSecret);
        if (answer.status !== 200) throw new Error(`a partner's token request answered ${answer.status}`);
        times.push(answer.ms);
      }
      return times;
    };
    await timed(partnerAddress, partner, 2); // warm-up; the address becomes known
    const aloneMs = await timed(partnerAddress, partner, 7);

    log(`token flood: ${FLOOD_CONNECTIONS} connections of wrong secrets from ${attacker}`);
    const agent = new http.Agent({ keepAlive: true, maxSockets: FLOOD_CONNECTIONS });
    const statuses: Record<number, number> = {};
    let requests = 0;
    let flooding = true;
    const floodStarted = performance.now();
    const connections = Array.from({ length: FLOOD_CONNECTIONS }, async (_, connection) => {
      for (let attempt = 0; flooding; attempt++) {
        const clientId = connection % 2 ? partner.clientId : `prd_ci_guess${connection}x${attempt}`;
        const answer = await postTokenFrom(origin, attacker, clientId, `prd_cs_wrong${attempt}`, agent);
        statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        requests += 1;
      }
    });
    let underFloodMs: number[] = [];
    let otherUnderFloodMs: number[] = [];
    try {
      underFloodMs = await timed(partnerAddress, partner, 12, 400);
      otherUnderFloodMs = await timed(otherAddress, otherPartner, 3, 400);
    } finally {
      flooding = false;
      await Promise.all(connections);
      agent.destroy();
    }
    const floodSeconds = (performance.now() - floodStarted) / 1000;

    // Interleaved, each from an address of its own (no lockout is reached).
    const unknownIdMs: number[] = [];
    const wrongSecretMs: number[] = [];
    for (let round = 0; round < 7; round++) {
      unknownIdMs.push((await postTokenFrom(origin, randomLoopback(), `prd_ci_unknown${round}`, 'prd_cs_notthesecret')).ms);
      wrongSecretMs.push((await postTokenFrom(origin, randomLoopback(), probed.clientId, 'prd_cs_notthesecret')).ms);
    }
    return { aloneMs, underFloodMs, otherUnderFloodMs, flood: { requests, seconds: floodSeconds, statuses }, unknownIdMs, wrongSecretMs };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export function formatTokenFlood(result: TokenFlood): string {
  const ms = (values: number[]) => `p50 ${Math.round(median(values))} ms (max ${Math.round(Math.max(...values))})`;
  const statuses = Object.entries(result.flood.statuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return [
    '',
    '## Token endpoint under a flood (same run)',
    '',
    `A partner's token alone: ${ms(result.aloneMs)}; under a ${FLOOD_CONNECTIONS}-connection flood of wrong secrets from another address: ` +
      `${ms(result.underFloodMs)} over ${result.underFloodMs.length} requests; another partner under the flood: ${ms(result.otherUnderFloodMs)}. ` +
      `Flood: ${result.flood.requests} requests in ${result.flood.seconds.toFixed(1)} s (${statuses}).`,
    '',
    `An unknown client ID against a wrong secret (7 interleaved each): ${ms(result.unknownIdMs)} against ${ms(result.wrongSecretMs)}, ` +
      `ratio of the medians ${(median(result.unknownIdMs) / median(result.wrongSecretMs)).toFixed(2)} (about 1: no timing oracle).`,
    '',
  ].join('\n');
}
