/**
 * Issue 34 item 3: every date, date-time, duration and cursor that any operation of any document
 * takes (found by walking the documents, test/support/time-inputs.ts) is sent boundary and random
 * values (test/support/time-arbitraries.ts), each inside an otherwise valid request: the answer is
 * a 2xx, or a 400 in the specification's error body, never a 5xx. A value the documents' formats
 * refuse is never accepted (a 2xx would mean an operation reads the value without the format), and
 * one they accept may still be refused by the operation's own rule (a range, a date in the past),
 * always with a 400. The only other answer allowed is the time travel's `409 clock_cannot_go_back`
 * for a time before the guarantee's own.
 */
import fc from 'fast-check';
import request from 'supertest';
import type { Response } from 'supertest';
import { newDirector, newStaff, OPS, type Operator } from '../back-office/ops-support';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { decodeCursor } from '../../src/validation/cursor';
import { parseDate, parseDateTime, parseDuration } from '../../src/validation/time-values';
import { guaranteeBody, newKey, nextCpf } from '../support/factories';
import { API } from '../support/partner-api';
import { useTestApp } from '../support/test-app';
import { BOUNDARIES, RANDOM } from '../support/time-arbitraries';
import { inputName, timeInputs, withValueAt, type TimeInput, type TimeKind } from '../support/time-inputs';
import { webhookTarget, type WebhookTarget } from '../support/webhook-operations';

/** Random values per input, beside every boundary value of its kind. */
const RUNS = 20;
const MERGE_PATCH = 'application/merge-patch+json';

// The quota would stop a suite that sends about a thousand requests with one credential.
const world = useTestApp({ RATE_LIMIT_REQUESTS: '0' }, { agencies: 1 });
let staff: Operator;
let director: Operator;
let webhook: WebhookTarget;
beforeAll(async () => {
  staff = await newStaff(world);
  director = await newDirector(world, world.agency.companyId);
  webhook = await webhookTarget(world, world.agency);
});

interface Probe {
  method: 'GET' | 'POST' | 'PATCH';
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body?: unknown;
}

const partner = (method: Probe['method'], path: string, body?: unknown, headers: Record<string, string> = {}): Probe => ({
  method,
  path: `${API}${path}`,
  query: [],
  headers: { ...world.agency.auth, ...(method === 'GET' ? {} : { 'Idempotency-Key': newKey() }), ...headers },
  body,
});
const backOffice = (method: Probe['method'], path: string, body?: unknown): Probe => ({
  method,
  path: `${OPS}${path}`,
  query: [],
  headers: { ...staff.auth, ...(method === 'GET' ? {} : { 'Idempotency-Key': newKey() }) },
  body,
});
const withQuery = (probe: Probe, query: Array<[string, string]>): Probe => ({ ...probe, query });

/** A new guarantee of the agency (with a co-tenant), created over HTTP. */
async function newGuarantee(): Promise<{ id: number; coTenant: string }> {
  const coTenant = nextCpf();
  const created = await request(world.app)
    .post(`${API}/v1/rental-insurances`)
    .set(world.agency.auth)
    .set('Idempotency-Key', newKey())
    .send(guaranteeBody({ coTenants: [{ cpfCnpj: coTenant, name: 'Joana Prado' }] }));
  if (created.status !== 201) throw new Error(`newGuarantee: ${created.status} ${created.text}`);
  return { id: created.body.id as number, coTenant };
}

const etagOf = async (id: number) => `W/"${(await world.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(id) } })).version}"`;

let shared: { id: number; coTenant: string } | undefined;
const sharedGuarantee = async () => (shared ??= await newGuarantee());

/**
 * A valid request of each operation that takes a time input, into which the value is put. Not
 * derived: only what the documents cannot say (a body that passes, a resource to name). A write
 * that changes what the next one needs gets a resource of its own.
 */
const VALID: Record<string, (input: TimeInput) => Promise<Probe>> = {
  createRentalInsurance: async () =>
    partner('POST', '/v1/rental-insurances', guaranteeBody({ coTenants: [{ cpfCnpj: nextCpf(), name: 'Joana Prado', birthDate: '1990-01-01' }] })),
  patchRentalInsurance: async () => {
    const { id } = await sharedGuarantee();
    return partner(
      'PATCH',
      `/v1/rental-insurances/${id}`,
      { tenant: { profession: 'Arquiteta' } },
      { 'If-Match': await etagOf(id), 'Content-Type': MERGE_PATCH },
    );
  },
  addCoTenant: async () => {
    const { id } = await newGuarantee();
    return partner('POST', `/v1/rental-insurances/${id}/co-tenants`, { cpfCnpj: nextCpf(), name: 'Rui Prado' }, { 'If-Match': await etagOf(id) });
  },
  patchCoTenant: async () => {
    const { id, coTenant } = await sharedGuarantee();
    return partner(
      'PATCH',
      `/v1/rental-insurances/${id}/co-tenants/${coTenant}`,
      { name: 'Joana Prado' },
      { 'If-Match': await etagOf(id), 'Content-Type': MERGE_PATCH },
    );
  },
  // Exactly one of `by` and `to`: the value is the body's only field.
  advanceRentalInsuranceClock: async () => partner('POST', `/v1/rental-insurances/${(await newGuarantee()).id}/advance-clock`, {}),
  listDailySummaries: async () => withQuery(partner('GET', '/v1/financial/daily-summaries'), lastMonth()),
  listStatementEntries: async () => withQuery(partner('GET', '/v1/financial/statement-entries'), lastMonth()),
  redeliverFailedWebhooks: async () =>
    partner('POST', `/v1/webhook-endpoints/${webhook.endpointId}/redeliver-failed`, { since: '2026-01-01T00:00:00Z' }),
  listEvents: async () => partner('GET', '/v1/events'),
  listRequestLog: async () => partner('GET', '/v1/request-log'),
  approveRentalInsurance: async () =>
    backOffice('POST', `/v1/rental-insurances/${(await newGuarantee()).id}/approve`, {
      installmentAmount: 456.04,
      coverageLimit: 136815.3,
      rentCoverageLimit: 105000,
      startBillingDate: '2027-01-01',
    }),
  postStatementEntry: async () =>
    backOffice('POST', '/v1/statement-entries', {
      companyId: world.agency.companyId,
      date: todayInSaoPaulo(),
      type: 'fee',
      amount: 1.5,
      description: 'Fee',
    }),
  listAgencyRequestLog: async () => withQuery(backOffice('GET', '/v1/request-log'), [['companyId', world.agency.companyId]]),
  // The director's own agency's log (the console's integrations section).
  listOwnRequestLog: async () => ({ ...backOffice('GET', '/v1/agency/request-log'), headers: director.auth }),
};

function lastMonth(): Array<[string, string]> {
  return [
    ['startDate', addDays(todayInSaoPaulo(), -30)],
    ['endDate', todayInSaoPaulo()],
  ];
}

/** Whether the documents' formats refuse `value` (the service's one parser is the reference, tested on its own in time-values.test.ts). */
const REFUSED: Record<TimeKind, (value: string) => boolean> = {
  date: (value) => parseDate(value) === null,
  'date-time': (value) => parseDateTime(value) === null,
  duration: (value) => parseDuration(value) === null,
  cursor: (value) => decodeCursor(value, 2) === null,
};

async function send(input: TimeInput, value: string): Promise<Response> {
  const probe = await VALID[input.operationId]!(input);
  const name = input.segments[0]!;
  const query = input.location === 'query' ? [...probe.query.filter(([other]) => other !== name), [name, value] as [string, string]] : probe.query;
  const body = input.location === 'body' ? withValueAt(probe.body, input.segments, value) : probe.body;
  const search = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
  const pending = request(world.app)[probe.method.toLowerCase() as 'get' | 'post' | 'patch'](`${probe.path}${search}`).set(probe.headers);
  if (body === undefined) return pending;
  return pending.set('Content-Type', probe.headers['Content-Type'] ?? 'application/json').send(JSON.stringify(body));
}

/** What is wrong with the answer to `value`, or null. */
function problemOf(input: TimeInput, value: string, response: Response): string | null {
  const seen = `${JSON.stringify(value)} -> ${response.status} ${response.text.slice(0, 300)}`;
  const refused = REFUSED[input.kind](value);
  if (response.status >= 200 && response.status < 300) return refused ? `a value the ${input.kind} format refuses was accepted: ${seen}` : null;
  const { code, message, timestamp, details } = (response.body ?? {}) as Record<string, unknown>;
  const errorBody =
    typeof code === 'string' &&
    typeof message === 'string' &&
    typeof timestamp === 'string' &&
    (details === undefined || (Array.isArray(details) && details.every((detail) => typeof detail === 'string')));
  if (!errorBody) return `not the error body: ${seen}`;
  if (response.status === 400) return refused && code !== 'validation_failed' ? `a malformed value is 400 validation_failed: ${seen}` : null;
  if (response.status === 409 && code === 'clock_cannot_go_back' && input.operationId === 'advanceRentalInsuranceClock' && !refused) return null;
  return `expected a 2xx or a 400: ${seen}`;
}

const inputs = timeInputs();

test('every time-valued input of the documents has a valid request to be sent in, and no valid request outlives its operation', () => {
  expect(inputs.length).toBeGreaterThan(0);
  expect(inputs.filter((input) => !VALID[input.operationId]).map((input) => `${input.document} ${input.operationId} ${inputName(input)}`)).toEqual(
    [],
  );
  expect(Object.keys(VALID).filter((operationId) => !inputs.some((input) => input.operationId === operationId))).toEqual([]);
});

describe.each(
  inputs.map((input) => [`${input.document}: ${input.operationId} ${input.location} ${inputName(input)} (${input.kind})`, input] as const),
)('When %s is sent boundary and random values', (_name, input) => {
  test('then each is answered 2xx or 400 in the error body, never 5xx, and a malformed one is never accepted', async () => {
    await fc.assert(
      fc.asyncProperty(RANDOM[input.kind], async (value) => {
        const problem = problemOf(input, value, await send(input, value));
        if (problem) throw new Error(problem);
      }),
      { numRuns: RUNS + BOUNDARIES[input.kind].length, examples: BOUNDARIES[input.kind].map((value) => [value]) },
    );
  }, 120_000);
});
