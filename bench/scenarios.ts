/** The measured operations: one autocannon request definition each. */
import { randomUUID } from 'node:crypto';

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
  const anyEarlyVersion = Array.from({ length: 20 }, (_, index) => `W/"${index + 1}"`).join(', ');
  return [
    {
      name: 'token issue (client credentials, scrypt-hashed secret)',
      method: 'POST',
      path: '/auth/oauth2/token',
      headers: { Authorization: inputs.basic, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials',
    },
    { name: 'get by id', target: '>= 0.5', method: 'GET', path: `${list}/${inputs.sampleId}`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, no filter', latencyTarget: 'p99 < 25 ms', method: 'GET', path: list, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, status=approved', latencyTarget: 'p99 < 25 ms', method: 'GET', path: `${list}?status=approved`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, tenantCpfCnpj', latencyTarget: 'p99 < 25 ms', method: 'GET', path: `${list}?tenantCpfCnpj=${inputs.sampleCpf}`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, propertyExternalId', latencyTarget: 'p99 < 25 ms', method: 'GET', path: `${list}?propertyExternalId=IMV-${inputs.sampleId}`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, tenantName=jose (substring)', latencyTarget: 'p99 < 25 ms', method: 'GET', path: `${list}?tenantName=jose`, headers: { Authorization: inputs.auth } },
    { name: 'list page 0, tenantName=otavio 12345 (selective)', latencyTarget: 'p99 < 25 ms', method: 'GET', path: `${list}?tenantName=${encodeURIComponent('otávio 12345')}`, headers: { Authorization: inputs.auth } },
    {
      name: 'create',
      target: '>= 0.2',
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
        const id = nextPatched;
        nextPatched += 10;
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
    { name: 'financial balance (1M entries)', method: 'GET', path: `${inputs.api}/v1/financial/balance`, headers: { Authorization: inputs.auth } },
    {
      name: 'daily summaries, 31 days',
      method: 'GET',
      path: `${inputs.api}/v1/financial/daily-summaries?startDate=${inputs.monthAgo}&endDate=${inputs.today}`,
      headers: { Authorization: inputs.auth },
    },
  ];
}
