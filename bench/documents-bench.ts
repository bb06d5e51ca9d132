/**
 * Documents (issue 35), in the same `make bench` run: an agency of its own (`bench-documents`, 200
 * guarantees made through the API) and the built service started as `npm start` starts it, beside
 * the documents' stack floor (document-floor-server.ts: Express, busboy and one bytea row in
 * PostgreSQL, behind the same Bearer check):
 *  - upload of a 1 MiB PDF (new bytes every request, spread over the guarantees) and download of
 *    one, for BENCH_SECONDS each: requests per second and MiB/s, service and floor;
 *  - 20 concurrent downloads of a 10 MiB document (3 rounds), then 20 concurrent uploads of
 *    10 MiB each (2 rounds), with the service's resident memory sampled every 20 ms: its peak
 *    against the issue's bound of 320 MB.
 * What it stored is deleted before and after (the agency's documents, their history entries and
 * events, its quota counts and stored responses). `BENCH_ONLY=documents` runs only this (with the
 * reference and the floors); `BENCH_DOCUMENTS=0` leaves it out.
 */
import { randomUUID } from 'node:crypto';
import { countCpu, type CpuPerRequest } from './cpu-usage';
import { log, WARMUP_SECONDS } from './measure';
import { sampleMemory, startProcess, startService } from './processes';
import { accessToken, type BenchDatabase } from './setup';
import { multipartOf, pdfOf, postJson, send, withSerial } from './document-requests';
import { agency, guaranteeIds, wipe } from './documents-agency';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon');

const PORTS = { service: 3799, floor: 3800 };
const MIB = 1024 * 1024;
const CONCURRENT = 20;
const API = '/rental-guarantee/v1/rental-insurances';

interface Setup {
  database: BenchDatabase;
  baseEnv: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface TransferRow {
  operation: 'upload 1 MiB PDF' | 'download 1 MiB PDF';
  server: 'service' | 'floor';
  requestsPerSecond: number;
  mibPerSecond: number;
  p50: number;
  p99: number;
  cpu: CpuPerRequest;
  statuses: Record<number, number>;
  errors: number;
}

export interface ConcurrentRow {
  operation: string;
  requests: number;
  statuses: Record<number, number>;
  idleRssMb: number;
  peakRssMb: number;
}

export interface DocumentsBench {
  connections: number;
  seconds: number;
  transfers: TransferRow[];
  concurrent: ConcurrentRow[];
}

interface Load {
  path: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  setupRequest?: (request: { path: string; headers: Record<string, string>; body?: Buffer }) => object;
}

async function transfer(load: Load, origin: string, pid: number, seconds: number, connections: number) {
  const run = (duration: number, statuses: Map<number, number>) =>
    autocannon({
      url: origin,
      connections,
      duration,
      requests: [
        {
          method: load.method,
          path: load.path,
          headers: load.headers,
          ...(load.setupRequest ? { setupRequest: load.setupRequest } : {}),
          onResponse: (status: number) => statuses.set(status, (statuses.get(status) ?? 0) + 1),
        },
      ],
    });
  if (WARMUP_SECONDS > 0) await run(WARMUP_SECONDS, new Map());
  const statuses = new Map<number, number>();
  const cpu = countCpu(pid);
  const result = await run(seconds, statuses);
  return {
    requestsPerSecond: result.requests.average as number,
    mibPerSecond: result.requests.average as number, // one MiB per request
    p50: result.latency.p50 as number,
    p99: result.latency.p99 as number,
    cpu: cpu.perRequest(result.requests.total),
    statuses: Object.fromEntries([...statuses.entries()].sort(([a], [b]) => a - b)),
    errors: (result.errors as number) + (result.timeouts as number),
  };
}

async function concurrently(name: string, rounds: number, pid: number, one: (index: number) => Promise<{ status: number }>): Promise<ConcurrentRow> {
  const memory = sampleMemory(pid, 20);
  await new Promise((resolve) => setTimeout(resolve, 200));
  const idleRssMb = memory.peakMb();
  memory.reset();
  const statuses = new Map<number, number>();
  for (let round = 0; round < rounds; round++) {
    const answers = await Promise.all(Array.from({ length: CONCURRENT }, (_, index) => one(round * CONCURRENT + index)));
    for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
  }
  await new Promise((resolve) => setTimeout(resolve, 100));
  memory.stop();
  return { operation: name, requests: rounds * CONCURRENT, statuses: Object.fromEntries(statuses), idleRssMb, peakRssMb: memory.peakMb() };
}

export async function measureDocuments(setup: Setup): Promise<DocumentsBench> {
  const { url } = setup.database;
  await wipe(url);
  const origin = `http://127.0.0.1:${PORTS.service}`;
  const floorOrigin = `http://127.0.0.1:${PORTS.floor}`;
  const service = await startService(
    {
      ...setup.baseEnv,
      WEBHOOK_DELIVERY_CONCURRENCY: '0',
      // Far above what a run uploads: the quota is counted on every upload, never refusing one.
      DOCUMENT_BYTES_PER_AGENCY_PER_DAY: String(1024 ** 4),
      PORT: String(PORTS.service),
      PUBLIC_ORIGIN: origin,
    },
    `${origin}/rental-guarantee/openapi.json`,
  );
  const floor = await startProcess(
    'document floor',
    'dist/bench/document-floor-server.js',
    [String(PORTS.floor), url],
    {},
    { url: `${floorOrigin}/ready` },
  );
  try {
    const auth = `Bearer ${await accessToken(origin, (await agency(url)).basic)}`;
    const ids = await guaranteeIds(origin, auth, url);
    const template = multipartOf(pdfOf(MIB, 0));
    let serial = Date.now();
    const uploadTo = (pathOf: (serial: number) => string, key: boolean): Load => ({
      method: 'POST',
      path: pathOf(0),
      headers: { Authorization: auth, 'Content-Type': template.contentType },
      setupRequest: (request) => {
        serial += 1;
        const headers = key ? { ...request.headers, 'Idempotency-Key': `bench-document-${serial}` } : request.headers;
        return { ...request, path: pathOf(serial), headers, body: withSerial(template, serial) };
      },
    });
    const transfers: TransferRow[] = [];
    const measureOne = async (operation: TransferRow['operation'], server: TransferRow['server'], load: Load) => {
      log(`measuring: documents, ${operation} through the ${server} (${setup.connections} connections)`);
      const target = server === 'service' ? { origin, pid: service.pid! } : { origin: floorOrigin, pid: floor.pid! };
      transfers.push({ operation, server, ...(await transfer(load, target.origin, target.pid, setup.seconds, setup.connections)) });
    };
    await measureOne(
      'upload 1 MiB PDF',
      'service',
      uploadTo((n) => `${API}/${ids[n % ids.length]}/documents`, true),
    );
    await measureOne(
      'upload 1 MiB PDF',
      'floor',
      uploadTo(() => '/documents', false),
    );

    // One document of each, read again and again.
    const one = withSerial(template, ++serial);
    const serviceUpload = await postJson(origin, `${API}/${ids[0]}/documents`, auth, template.contentType, one);
    const floorUpload = await postJson(floorOrigin, '/documents', auth, template.contentType, one);
    const serviceDocument = (serviceUpload as { documents: Array<{ id: number }> }).documents[0]!.id;
    await measureOne('download 1 MiB PDF', 'service', {
      method: 'GET',
      path: `${API}/${ids[0]}/documents/${serviceDocument}`,
      headers: { Authorization: auth },
    });
    await measureOne('download 1 MiB PDF', 'floor', {
      method: 'GET',
      path: `/documents/${(floorUpload as { id: number }).id}`,
      headers: { Authorization: auth },
    });

    log(`measuring: documents, ${CONCURRENT} concurrent 10 MiB downloads and uploads (service resident memory)`);
    const big = multipartOf(pdfOf(10 * MIB, ++serial));
    const bigUpload = await postJson(origin, `${API}/${ids[1]}/documents`, auth, big.contentType, big.body);
    const bigDocument = (bigUpload as { documents: Array<{ id: number }> }).documents[0]!.id;
    const concurrent = [
      await concurrently(`${CONCURRENT} concurrent downloads of a 10 MiB PDF (3 rounds)`, 3, service.pid!, () =>
        send(origin, 'GET', `${API}/${ids[1]}/documents/${bigDocument}`, { Authorization: auth }),
      ),
      await concurrently(`${CONCURRENT} concurrent uploads of 10 MiB PDFs (2 rounds)`, 2, service.pid!, (index) =>
        send(
          origin,
          'POST',
          `${API}/${ids[(index + 2) % ids.length]}/documents`,
          { Authorization: auth, 'Content-Type': big.contentType, 'Idempotency-Key': randomUUID() },
          withSerial(big, ++serial),
        ),
      ),
    ];
    return { connections: setup.connections, seconds: setup.seconds, transfers, concurrent };
  } finally {
    service.kill('SIGTERM');
    floor.kill('SIGTERM');
    await Promise.all([service, floor].map((child) => (child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined)));
    await wipe(url);
  }
}
