/**
 * The request log stays bounded (issue 26 item 1): lines older than 7 days are pruned and never
 * listed, an agency keeps only its latest REQUEST_LOG_LINES_PER_AGENCY lines, the write-behind
 * and only its latest REQUEST_LOG_BYTES_PER_AGENCY bytes (issue 34), the write-behind writes a
 * line within about REQUEST_LOG_FLUSH_MS without anyone flushing it, its buffer drops (and counts)
 * lines beyond its bounds in lines and in bytes, and REQUEST_LOG=off records nothing.
 */
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createLogger } from '../../src/logger';
import { metrics } from '../../src/observability/metrics';
import { pruneRequestLog } from '../../src/request-log/request-log-pruning';
import { estimatedBytes, RequestLogWriter } from '../../src/request-log/request-log-writer';
import type { RequestLogLine } from '../../src/http/request-log-line';
import { API, asPartner } from '../support/partner-api';
import { useTestApp, type Agency } from '../support/test-app';
import { waitFor } from '../support/wait-for';

const LOG = `${API}/v1/request-log`;
const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0', REQUEST_LOG_FLUSH_MS: '50', REQUEST_LOG_LINES_PER_AGENCY: '5' }, { agencies: 2 });

const DAY = 86_400_000;
/** A bound in bytes no test agency reaches. */
const ROOMY = 1 << 30;

function line(agency: Agency, at: Date, correlationId: string): RequestLogLine {
  return {
    companyId: agency.companyId,
    at,
    method: 'GET',
    path: '/v1/rental-insurances',
    resourceId: null,
    operationId: 'listRentalInsurances',
    status: 200,
    errorCode: null,
    errorDetails: [],
    correlationId,
    idempotencyKey: null,
    idempotentReplay: null,
    durationMs: 1.5,
    credentialId: agency.credentialId,
    credentialName: agency.displayName,
    sourceAddress: '127.0.0.1',
  };
}

const correlationIds = async (agency: Agency) =>
  (await world.db.requestLogLine.findMany({ where: { companyId: agency.companyId }, orderBy: [{ at: 'desc' }, { id: 'desc' }] })).map(
    (row) => row.correlationId,
  );

describe('When lines grow old or numerous', () => {
  it('then a line appears by itself shortly after its answer (write-behind)', async () => {
    const agency = world.agencies[0]!;
    await asPartner(world, agency).list().set('X-Correlation-Id', 'rl-behind');
    const lines = () => world.db.requestLogLine.count({ where: { correlationId: 'rl-behind' } });
    expect(await waitFor(lines, (count) => count > 0)).toBe(1);
  });

  it('then lines older than 7 days are not listed, and are pruned', async () => {
    const agency = world.agencies[1]!;
    const now = Date.now();
    await world.db.requestLogLine.createMany({
      data: [line(agency, new Date(now - 8 * DAY), 'rl-old'), line(agency, new Date(now - 6 * DAY), 'rl-six-days')],
    });
    const listed = await request(world.app).get(`${LOG}?limit=200`).set(agency.auth);
    expect(listed.status).toBe(200);
    const ids = (listed.body._embedded.requestLog as Array<{ correlationId: string }>).map((one) => one.correlationId);
    expect(ids).toContain('rl-six-days');
    expect(ids).not.toContain('rl-old');
    const pruned = await pruneRequestLog(world.db, { lines: 1000, bytes: ROOMY });
    expect(pruned.expired).toBeGreaterThanOrEqual(1);
    expect(await correlationIds(agency)).not.toContain('rl-old');
    expect(await correlationIds(agency)).toContain('rl-six-days');
  });

  it("then an agency keeps only its latest lines beyond the bound, and another agency's lines are untouched", async () => {
    const [a, b] = [world.agencies[0]!, world.agencies[1]!];
    await world.flushRequestLog();
    const now = Date.now();
    await world.db.requestLogLine.createMany({
      data: Array.from({ length: 8 }, (_, i) => line(a, new Date(now - (8 - i) * 60_000), `rl-bound-${i}`)),
    });
    const bBefore = await correlationIds(b);
    // Two processes pruning at once delete each line once and leave the same bound.
    await Promise.all([pruneRequestLog(world.db, { lines: 5, bytes: ROOMY }), pruneRequestLog(world.db, { lines: 5, bytes: ROOMY })]);
    const kept = await correlationIds(a);
    expect(kept).toHaveLength(5);
    expect(await correlationIds(b)).toEqual(bBefore.slice(0, 5));
    // The newest lines are the ones kept.
    const newest = await world.db.requestLogLine.findMany({ where: { companyId: a.companyId }, orderBy: [{ at: 'desc' }, { id: 'desc' }], take: 5 });
    expect(kept).toEqual(newest.map((row) => row.correlationId));
    expect(kept).not.toContain('rl-bound-0');
  });
});

describe('When an agency writes long lines', () => {
  it('then it keeps only its latest lines within its bytes, each line sized as written, and another agency keeps all of its own', async () => {
    const [a, b] = [world.agencies[0]!, world.agencies[1]!];
    await world.flushRequestLog();
    const batch = randomUUID().slice(0, 8);
    const writer = new RequestLogWriter(world.db, createLogger('silent'), { flushMs: 60_000 });
    const now = Date.now();
    const long = (i: number): RequestLogLine => ({
      ...line(a, new Date(now - (10 - i) * 1000), `rl-bytes-${batch}-${i}`),
      status: 400,
      errorCode: 'validation_failed',
      errorDetails: Array.from({ length: 5 }, (_, n) => `${'x'.repeat(190)}: unknown field ${n}`.slice(0, 200)),
    });
    for (let i = 0; i < 10; i++) writer.record(long(i));
    writer.record(line(b, new Date(now), `rl-bytes-${batch}-b`));
    await writer.flush();
    const written = await world.db.requestLogLine.findMany({
      where: { correlationId: { startsWith: `rl-bytes-${batch}` }, companyId: a.companyId },
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
    });
    expect(written).toHaveLength(10);
    const size = written[0]!.sizeBytes;
    // Five details of 200 characters, the other values and the JSON around them.
    expect(size).toBeGreaterThan(1000);
    expect(size).toBeLessThan(2000);
    await world.db.requestLogLine.deleteMany({ where: { companyId: a.companyId, correlationId: { not: { startsWith: `rl-bytes-${batch}` } } } });
    await pruneRequestLog(world.db, { lines: 1000, bytes: size * 3 + 10 });
    const kept = await correlationIds(a);
    expect(kept).toEqual([9, 8, 7].map((i) => `rl-bytes-${batch}-${i}`));
    expect(await correlationIds(b)).toContain(`rl-bytes-${batch}-b`);
  });
});

describe('When the buffer is full', () => {
  it('then new lines are dropped and counted, and what was buffered is written', async () => {
    const agency = world.agencies[0]!;
    const writer = new RequestLogWriter(world.db, createLogger('silent'), { flushMs: 60_000, maxBuffered: 3, batchLines: 100 });
    const droppedBefore = (await metrics.requestLogDropped.get()).values.find((v) => v.labels['reason'] === 'buffer_full')?.value ?? 0;
    const batch = randomUUID().slice(0, 8);
    for (let i = 0; i < 5; i++) writer.record(line(agency, new Date(), `rl-full-${batch}-${i}`));
    await writer.flush();
    const written = await world.db.requestLogLine.findMany({ where: { correlationId: { startsWith: `rl-full-${batch}` } } });
    expect(written.map((row) => row.correlationId).sort()).toEqual([0, 1, 2].map((i) => `rl-full-${batch}-${i}`));
    const droppedAfter = (await metrics.requestLogDropped.get()).values.find((v) => v.labels['reason'] === 'buffer_full')?.value ?? 0;
    expect(droppedAfter - droppedBefore).toBe(2);
  });
});

describe('When the buffer holds as many bytes as it may', () => {
  it('then new lines are dropped and counted, however few lines it holds', async () => {
    const agency = world.agencies[0]!;
    const batch = randomUUID().slice(0, 8);
    const fat = (i: number): RequestLogLine => ({ ...line(agency, new Date(), `rl-fat-${batch}-${i}`), errorDetails: ['d'.repeat(200)] });
    const perLine = estimatedBytes(fat(0));
    const writer = new RequestLogWriter(world.db, createLogger('silent'), { flushMs: 60_000, maxBufferedBytes: perLine * 2 + 1 });
    const droppedBefore = (await metrics.requestLogDropped.get()).values.find((v) => v.labels['reason'] === 'buffer_full')?.value ?? 0;
    for (let i = 0; i < 4; i++) writer.record(fat(i));
    await writer.flush();
    const written = await world.db.requestLogLine.findMany({ where: { correlationId: { startsWith: `rl-fat-${batch}` } } });
    expect(written.map((row) => row.correlationId).sort()).toEqual([0, 1].map((i) => `rl-fat-${batch}-${i}`));
    const droppedAfter = (await metrics.requestLogDropped.get()).values.find((v) => v.labels['reason'] === 'buffer_full')?.value ?? 0;
    expect(droppedAfter - droppedBefore).toBe(2);
  });
});

describe('When one batch holds the lines of several agencies, credentials and operations', () => {
  it('then every line is stored with its own fields, exactly as recorded', async () => {
    const [a, b] = [world.agencies[0]!, world.agencies[1]!];
    const batch = randomUUID().slice(0, 8);
    const at = new Date('2026-11-28T10:11:12.345Z').getTime() + Math.floor(Math.random() * 1000);
    const lines: RequestLogLine[] = [
      { ...line(a, new Date(at), `rl-mix-${batch}-0`), credentialName: 'Sol "ERP" \\ Imobiliária ✓' },
      {
        ...line(b, new Date(at + 1), `rl-mix-${batch}-1`),
        method: 'POST',
        path: '/v1/rental-insurances/{id}/comments',
        operationId: 'commentRentalInsurance',
        resourceId: '42',
        status: 400,
        errorCode: 'validation_failed',
        errorDetails: ['comment: must contain a character other than whitespace', 'tab\there, "quoted", \\ and ✓'],
        idempotencyKey: 'key-"1"',
        idempotentReplay: null,
        durationMs: 12.3,
        sourceAddress: '2001:db8::1',
      },
      { ...line(a, new Date(at + 2), `rl-mix-${batch}-2`), method: 'HEAD', idempotentReplay: true },
      { ...line(b, new Date(at + 3), `rl-mix-${batch}-3`), idempotentReplay: false, durationMs: 0.1 },
      { ...line(a, new Date(at + 4), `rl-mix-${batch}-4`), credentialName: 'Renamed since' },
    ];
    const writer = new RequestLogWriter(world.db, createLogger('silent'), { flushMs: 60_000 });
    for (const recorded of lines) writer.record(recorded);
    await writer.flush();
    const stored = await world.db.requestLogLine.findMany({ where: { correlationId: { startsWith: `rl-mix-${batch}` } }, orderBy: { at: 'asc' } });
    expect(stored.map(({ id: _id, sizeBytes: _size, ...fields }) => ({ ...fields, durationMs: Math.round(fields.durationMs * 10) / 10 }))).toEqual(
      lines,
    );
    expect(stored.every((row) => row.sizeBytes > 100)).toBe(true);
  });
});

describe('When REQUEST_LOG=off', () => {
  it('then no line is recorded, and the operation still answers', async () => {
    const quiet = await world.anotherApp({ REQUEST_LOG: 'off', SCHEDULER_INTERVAL_MS: '0' });
    const agency = world.agencies[0]!;
    await request(quiet.app).get(`${API}/v1/rental-insurances`).set(agency.auth).set('X-Correlation-Id', 'rl-off');
    expect((await request(quiet.app).get(LOG).set(agency.auth)).status).toBe(200);
    await quiet.flushRequestLog();
    await world.flushRequestLog();
    expect(await world.db.requestLogLine.count({ where: { correlationId: 'rl-off' } })).toBe(0);
  });
});
