/**
 * Bounded answers (issue 23 item 1): an agency of its own on the bench database gets one webhook
 * delivery with BENCH_BOUNDED_ATTEMPTS attempts (100,000 by default, stored directly: about 83
 * minutes of one credential's quota of redeliveries before the cap) and a credential with 60,000
 * revoked secrets. Then, against the built service started as `npm start` starts it (96 MB heap):
 * every listing that shows them, once (size and time), and 20 callers reading
 * `GET …/deliveries?pageSize=1` (the request that exhausted the heap before) for BENCH_SECONDS; the
 * service must answer every one and still be live after. Also what the attempts page's exact
 * `totalElements` costs: the count over the delivery's attempts, alone (median of 5; the figure
 * test/webhooks/webhook-attempts-at-scale.test.ts used to bound). `BENCH_ONLY=bounded` runs only this;
 * `BENCH_BOUNDED=0` leaves it out.
 */
import { randomUUID } from 'node:crypto';
import { createCredential, createStaffCredential } from '../src/auth/credentials';
import { SCOPES, STAFF_SCOPES } from '../src/auth/scopes';
import { createDatabaseClient } from '../src/database/prisma-client';
import { log } from './measure';
import { median } from './median';
import { sampleMemory, startService } from './processes';
import { accessToken, type BenchDatabase } from './setup';

const PORT = 3798;
const COMPANY = 'bench-bounded';
const ATTEMPTS = Number(process.env.BENCH_BOUNDED_ATTEMPTS ?? 100_000);
const REVOKED_SECRETS = 60_000;
const CALLERS = 20;

export interface BoundedAnswers {
  attempts: number;
  revokedSecrets: number;
  listings: Array<{ name: string; status: number; bytes: number; ms: number }>;
  parallel: { seconds: number; requests: number; statuses: Record<number, number>; p50Ms: number; p99Ms: number; maxMs: number };
  peakRssMb: number;
  liveAfter: boolean;
  /** The count(*) behind the attempts page's totalElements: median and each of 5 runs, ms. */
  count: { medianMs: number; allMs: number[] };
}

const basicOf = (credential: { clientId: string; clientSecret: string }) =>
  `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`;

/** The agency's endpoint, event, delivery and attempts, and the revoked secrets, stored once (later runs reuse them). */
async function store(url: string) {
  const db = createDatabaseClient(url, { poolMax: 2 });
  try {
    const partner = await createCredential(db, 'production', {
      companyId: COMPANY,
      companyName: 'Bench bounded answers',
      displayName: `bench bounded ${new Date().toISOString()}`,
      scopes: [...SCOPES],
      createdBy: 'bench',
    });
    const staff = await createStaffCredential(db, 'production', { personName: 'Bench Staff', scopes: [...STAFF_SCOPES], createdBy: 'bench' });
    let endpoint = await db.webhookEndpoint.findFirst({ where: { companyId: COMPANY } });
    if (!endpoint) {
      // Stored directly: nothing is delivered (no job is queued), only the listings are read.
      endpoint = await db.webhookEndpoint.create({
        data: {
          id: randomUUID(),
          companyId: COMPANY,
          credentialId: partner.credentialId,
          url: 'https://receiver.example/hooks',
          eventTypes: ['statement_entry.created'],
          secret: 'unused',
        },
      });
      const eventId = randomUUID();
      await db.$executeRaw`INSERT INTO events (id, company_id, type, data) VALUES (${eventId}::uuid, ${COMPANY}, 'webhook.test', '{}'::jsonb)`;
      await db.$executeRaw`INSERT INTO webhook_deliveries (endpoint_id, event_id, company_id, status) VALUES (${endpoint.id}::uuid, ${eventId}::uuid, ${COMPANY}, 'failed')`;
    }
    const delivery = await db.webhookDelivery.findFirstOrThrow({ where: { endpointId: endpoint.id } });
    const have = await db.webhookAttempt.count({ where: { deliveryId: delivery.id } });
    if (have < ATTEMPTS) {
      log(`bounded answers: storing ${ATTEMPTS - have} attempts on one delivery`);
      await db.$executeRaw`INSERT INTO webhook_attempts (delivery_id, response_status, latency_ms, error)
        SELECT ${delivery.id}::uuid, 503, 10000, 'timeout after 10000 ms' FROM generate_series(1, ${ATTEMPTS - have}::int)`;
    }
    await db.$executeRaw`INSERT INTO credential_secrets (id, credential_id, secret_hash, revoked_at)
      SELECT gen_random_uuid(), ${partner.credentialId}::uuid, 'revoked', now() FROM generate_series(1, ${REVOKED_SECRETS}::int)`;
    return { partner, staff, endpointId: endpoint.id, deliveryId: delivery.id };
  } finally {
    await db.$disconnect();
  }
}

/** The exact count of a delivery's attempts (an index-only scan), 5 times one after the other. */
async function countCost(url: string, deliveryId: string): Promise<BoundedAnswers['count']> {
  const db = createDatabaseClient(url, { poolMax: 1 });
  try {
    const allMs: number[] = [];
    for (let run = 0; run < 5; run++) {
      const started = performance.now();
      await db.$queryRaw`SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = ${deliveryId}::uuid`;
      allMs.push(Math.round((performance.now() - started) * 10) / 10);
    }
    return { medianMs: median(allMs), allMs };
  } finally {
    await db.$disconnect();
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function measureBoundedAnswers(bench: BenchDatabase, baseEnv: Record<string, string>, seconds: number): Promise<BoundedAnswers> {
  const origin = `http://127.0.0.1:${PORT}`;
  const stored = await store(bench.url);
  const service = await startService(
    { ...baseEnv, PORT: String(PORT), PUBLIC_ORIGIN: origin, SCHEDULER_INTERVAL_MS: '0', WEBHOOK_DELIVERY_CONCURRENCY: '0' },
    `${origin}/health/ready`,
  );
  const memory = sampleMemory(service.pid!);
  try {
    const partner = { Authorization: `Bearer ${await accessToken(origin, basicOf(stored.partner))}` };
    const staff = { Authorization: `Bearer ${await accessToken(origin, basicOf(stored.staff))}` };
    const deliveries = `/rental-guarantee/v1/webhook-endpoints/${stored.endpointId}/deliveries`;
    const listings: Array<[string, string, Record<string, string>]> = [
      ['partner: deliveries, pageSize=1', `${deliveries}?pageSize=1`, partner],
      ['partner: deliveries, pageSize=200', `${deliveries}?pageSize=200`, partner],
      ['partner: attempts, first page of 200 (exact totalElements)', `${deliveries}/${stored.deliveryId}/attempts?pageSize=200`, partner],
      [
        'partner: attempts, last page of 200',
        `${deliveries}/${stored.deliveryId}/attempts?page=${Math.ceil(ATTEMPTS / 200) - 1}&pageSize=200`,
        partner,
      ],
      ['back office: deliveries, pageSize=200', `/back-office/v1/webhook-endpoints/${stored.endpointId}/deliveries?pageSize=200`, staff],
      ['back office: the credential (60,000+ revoked secrets)', `/back-office/v1/credentials/${stored.partner.credentialId}`, staff],
      ['back office: credentials, pageSize=200', `/back-office/v1/credentials?companyId=${COMPANY}&pageSize=200`, staff],
    ];
    const measured: BoundedAnswers['listings'] = [];
    for (const [name, path, headers] of listings) {
      const started = performance.now();
      const response = await fetch(`${origin}${path}`, { headers });
      const bytes = (await response.arrayBuffer()).byteLength;
      measured.push({ name, status: response.status, bytes, ms: Math.round(performance.now() - started) });
    }
    log(`bounded answers: ${CALLERS} callers reading ${deliveries}?pageSize=1 for ${seconds} s`);
    memory.reset();
    const statuses: Record<number, number> = {};
    const latencies: number[] = [];
    const until = Date.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: CALLERS }, async () => {
        while (Date.now() < until) {
          const started = performance.now();
          const status = await fetch(`${origin}${deliveries}?pageSize=1`, { headers: partner }).then(
            async (response) => (await response.arrayBuffer(), response.status),
            () => 0,
          );
          latencies.push(performance.now() - started);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    const sorted = latencies.sort((a, b) => a - b);
    const count = await countCost(bench.url, stored.deliveryId);
    const liveAfter = await fetch(`${origin}/health/live`).then(
      (response) => response.ok,
      () => false,
    );
    return {
      attempts: ATTEMPTS,
      revokedSecrets: REVOKED_SECRETS,
      listings: measured,
      parallel: {
        seconds,
        requests: latencies.length,
        statuses,
        p50Ms: Math.round(percentile(sorted, 50)),
        p99Ms: Math.round(percentile(sorted, 99)),
        maxMs: Math.round(sorted[sorted.length - 1] ?? NaN),
      },
      peakRssMb: memory.peakMb(),
      liveAfter,
      count,
    };
  } finally {
    memory.stop();
    service.kill('SIGTERM');
    await new Promise((resolve) => service.once('exit', resolve));
  }
}

export function formatBoundedAnswers(result: BoundedAnswers): string {
  const statuses = Object.entries(result.parallel.statuses)
    .map(([status, count]) => `${status}×${count}`)
    .join(' ');
  return [
    '',
    '## Bounded answers (same run)',
    '',
    `One delivery with ${result.attempts.toLocaleString('en-US')} attempts and one credential with ${result.revokedSecrets.toLocaleString('en-US')} more revoked secrets (stored directly), read through the built service (96 MB heap).`,
    '',
    '| listing | status | bytes | ms |',
    '|---|---:|---:|---:|',
    ...result.listings.map((listing) => `| ${listing.name} | ${listing.status} | ${listing.bytes.toLocaleString('en-US')} | ${listing.ms} |`),
    '',
    `${CALLERS} callers reading the deliveries (pageSize=1) for ${result.parallel.seconds} s: ${result.parallel.requests.toLocaleString('en-US')} requests (${statuses}), ` +
      `p50 ${result.parallel.p50Ms} ms, p99 ${result.parallel.p99Ms} ms, max ${result.parallel.maxMs} ms; peak RSS ${result.peakRssMb} MB; live after: ${result.liveAfter ? 'yes' : 'NO'}.`,
    '',
    `The exact count behind the attempts page's totalElements (count over the ${result.attempts.toLocaleString('en-US')} attempts): median ${result.count.medianMs} ms of 5 (${result.count.allMs.join(', ')} ms).`,
    '',
  ].join('\n');
}
