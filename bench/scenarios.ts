/** The measured operations: one autocannon request definition each. */
import { randomUUID } from 'node:crypto';
import { withCpfCheckDigits } from '../src/validation/cpf-cnpj';

export interface Scenario {
  name: string;
  /** Fraction of the ceiling the issue asks for, when it sets one. */
  target?: string;
  /** A latency the issue asks for: also measured with BENCH_LATENCY_CONNECTIONS callers. */
  latencyTarget?: string;
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Per-request changes (a fresh idempotency key, the next guarantee to patch...). */
  setupRequest?: (request: { headers: Record<string, string>; path: string; body?: string }) => typeof request;
  /** Acts once per approved guarantee: the proposals that earlier runs decided are put back first (setup.ts). */
  decidesProposals?: boolean;
}

export interface ScenarioInputs {
  api: string;
  auth: string;
  token: string;
  basic: string;
  sampleId: number;
  sampleCpf: string;
  totalRows: number;
  today: string;
  monthAgo: string;
}

const createBody = JSON.stringify({
  tenant: { cpfCnpj: '52998224725', name: 'Maria José da Silva', phoneNumber: '(11) 98765-4321' },
  property: {
    externalId: 'IMV-BENCH',
    type: 'apartment',
    address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
  },
  rentalAmount: 3500,
  condoFee: 850,
});

export function scenarios(inputs: ScenarioInputs): Scenario[] {
  const json = { Authorization: inputs.auth, 'Content-Type': 'application/json' };
  const list = `${inputs.api}/v1/rental-insurances`;
  // Each patch goes to another seeded guarantee that is under review (seed.ts: id % 10 = 0); the
  // If-Match list accepts the first versions so that re-running the benchmark still patches.
  let nextPatched = 10 * (1 + Math.floor(Math.random() * Math.max(inputs.totalRows / 10 - 20_000, 1)));
  // Each co-tenant, of a random CPF, goes to a random under-review guarantee of the upper half of
  // the range: one seldom meets its limit of 10 co-tenants or a version past the If-Match list,
  // however many runs came before (a fixed CPF made every re-run answer 409, duplicate_co_tenant).
  const coTenantHolder = () => 10 * Math.floor(((1 + Math.random()) * inputs.totalRows) / 20);
  // The sample is what the reads read (get by id, its history, its signatures): no write changes it.
  const apartFromSample = (id: number, step: number) => (id === inputs.sampleId ? id + step : id);
  const anyEarlyVersion = Array.from({ length: 20 }, (_, index) => `W/"${index + 1}"`).join(', ');
  return [
    {
      name: 'token issue (client credentials, scrypt-hashed secret)',
      method: 'POST',
      path: '/auth/oauth2/token',
      headers: { Authorization: inputs.basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    },
    {
      name: 'get by id',
      target: '>= 0.8 of Prisma floor, p99 < 100 ms',
      method: 'GET',
      path: `${list}/${inputs.sampleId}`,
      headers: { Authorization: inputs.auth },
    },
    { name: 'history', method: 'GET', path: `${list}/${inputs.sampleId}/history`, headers: { Authorization: inputs.auth } },
    { name: 'signatures', method: 'GET', path: `${list}/${inputs.sampleId}/signatures`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, no filter', latencyTarget: 'p99 < 25 ms', method: 'GET', path: list, headers: { Authorization: inputs.auth } },
    {
      name: 'list page 0, status=approved',
      latencyTarget: 'p99 < 25 ms',
      method: 'GET',
      path: `${list}?status=approved`,
      headers: { Authorization: inputs.auth },
    },
    {
      name: 'list page 0, tenantCpfCnpj',
      latencyTarget: 'p99 < 25 ms',
      method: 'GET',
      path: `${list}?tenantCpfCnpj=${inputs.sampleCpf}`,
      headers: { Authorization: inputs.auth },
    },
    {
      name: 'list page 0, propertyExternalId',
      latencyTarget: 'p99 < 25 ms',
      method: 'GET',
      path: `${list}?propertyExternalId=IMV-${inputs.sampleId}`,
      headers: { Authorization: inputs.auth },
    },
    {
      name: 'list page 0, tenantName=jose (substring)',
      latencyTarget: 'p99 < 25 ms',
      method: 'GET',
      path: `${list}?tenantName=jose`,
      headers: { Authorization: inputs.auth },
    },
    {
      name: 'list page 0, tenantName=otavio 12345 (selective)',
      latencyTarget: 'p99 < 25 ms',
      method: 'GET',
      path: `${list}?tenantName=${encodeURIComponent('otávio 12345')}`,
      headers: { Authorization: inputs.auth },
    },
    {
      name: 'create',
      method: 'POST',
      path: list,
      headers: json,
      body: createBody,
      setupRequest: (request) => ({ ...request, headers: { ...request.headers, 'Idempotency-Key': randomUUID() } }),
    },
    {
      name: 'patch (merge patch, If-Match)',
      method: 'PATCH',
      path: `${list}/1`,
      headers: { Authorization: inputs.auth, 'Content-Type': 'application/merge-patch+json', 'If-Match': anyEarlyVersion },
      setupRequest: (request) => {
        const id = apartFromSample(nextPatched, 10);
        nextPatched = id + 10;
        return {
          ...request,
          path: `${list}/${id}`,
          headers: { ...request.headers, 'Idempotency-Key': randomUUID() },
          body: JSON.stringify({ externalId: `CTR-${id}-${randomUUID().slice(0, 8)}` }),
        };
      },
    },
    {
      name: 'idempotent replay (same key, same body)',
      method: 'POST',
      path: list,
      headers: { ...json, 'Idempotency-Key': `bench-replay-${randomUUID()}` },
      body: createBody,
    },
    {
      // On a random seeded guarantee each time, never the sample: comments on it would grow the
      // history that the history scenario reads, run after run.
      name: 'comment',
      method: 'POST',
      path: `${list}/${inputs.sampleId}/comments`,
      headers: json,
      body: JSON.stringify({ comment: 'Benchmark comment.' }),
      setupRequest: (request) => ({
        ...request,
        path: `${list}/${apartFromSample(1 + Math.floor(Math.random() * inputs.totalRows), 1)}/comments`,
        headers: { ...request.headers, 'Idempotency-Key': randomUUID() },
      }),
    },
    // Accept and refuse each take the next approved seeded guarantee (seed.ts: id % 10 = 2).
    nextInLine('accept', `${list}/{id}/accept`, inputs, approvedAt(0.4)),
    nextInLine('refuse', `${list}/{id}/refuse`, inputs, approvedAt(0.7)),
    {
      name: 'add co-tenant (If-Match)',
      method: 'POST',
      path: `${list}/1/co-tenants`,
      headers: { ...json, 'If-Match': anyEarlyVersion },
      setupRequest: (request) => ({
        ...request,
        path: `${list}/${apartFromSample(coTenantHolder(), 10)}/co-tenants`,
        headers: { ...request.headers, 'Idempotency-Key': randomUUID() },
        body: JSON.stringify({
          cpfCnpj: withCpfCheckDigits(String(100_000_000 + Math.floor(Math.random() * 800_000_000))),
          name: 'Carlos Alberto de Souza',
        }),
      }),
    },
    {
      name: 'statement entries, 31 days, page 0',
      method: 'GET',
      path: `${inputs.api}/v1/financial/statement-entries?startDate=${inputs.monthAgo}&endDate=${inputs.today}`,
      headers: { Authorization: inputs.auth },
    },
    { name: 'financial balance (1M entries)', method: 'GET', path: `${inputs.api}/v1/financial/balance`, headers: { Authorization: inputs.auth } },
    {
      name: 'daily summaries, 31 days',
      method: 'GET',
      path: `${inputs.api}/v1/financial/daily-summaries?startDate=${inputs.monthAgo}&endDate=${inputs.today}`,
      headers: { Authorization: inputs.auth },
    },
  ];
}

/** A random seeded approved guarantee (id % 10 = 2) in the slice of the range starting at `fraction`. */
const approvedAt = (fraction: number) => (totalRows: number) => 10 * Math.floor((fraction + Math.random() * 0.25) * (totalRows / 10)) + 2;

/** A POST without body to the next approved guarantee on every request (each may act once). */
function nextInLine(name: string, template: string, inputs: ScenarioInputs, first: (totalRows: number) => number): Scenario {
  let next = first(inputs.totalRows);
  return {
    name,
    decidesProposals: true,
    method: 'POST',
    path: template.replace('{id}', String(next)),
    headers: { Authorization: inputs.auth },
    setupRequest: (request) => {
      const id = next;
      next += 10;
      return { ...request, path: template.replace('{id}', String(id)), headers: { ...request.headers, 'Idempotency-Key': randomUUID() } };
    },
  };
}
