/**
 * The tests' response check (src/http/response-check.ts, on in every test app) refuses what the
 * contract does not allow: an undeclared status, a body out of its schema, a header value of the
 * wrong type, a required header missing; and lets a conforming answer through. Every other test
 * relies on it to catch an answer out of contract, so it is checked here on its own.
 */
import OpenAPIBackend, { type Document } from 'openapi-backend';
import { loadContract } from '../../src/contract/load-contract';
import { sharedAjvs } from '../../src/http/ajv';
import { ContractViolation, responseChecker, type ResponseCheck } from '../../src/http/response-check';
import { SerializedJson } from '../../src/http/http-result';

let api: OpenAPIBackend;
let check: ResponseCheck;
beforeAll(async () => {
  api = new OpenAPIBackend({
    definition: loadContract('partner') as unknown as Document,
    quick: true,
    strict: true,
    customizeAjv: sharedAjvs() as never,
  });
  await api.init();
  check = responseChecker(api);
});

const comment = () => api.getOperation('createRentalInsuranceComment')!;
const entry = {
  creator: { name: 'ERP', serviceAccount: true },
  comment: 'Comprovante enviado.',
  previousStatus: { code: 'under_review', description: 'Under review' },
  status: { code: 'under_review', description: 'Under review' },
  documents: [],
  createdAt: '2026-11-29T10:00:00.000Z',
};
const headers = { 'Idempotent-Replay': 'false', 'Service-Effects': 'none' };
const run = (status: number, body: unknown, sent: Record<string, string> = headers) =>
  check(comment(), 'POST /v1/rental-insurances/1/comments', { status, body: new SerializedJson(JSON.stringify(body)), headers: sent }, 'corr-1');

test('When an answer is in contract, then it passes', () => {
  expect(() => run(201, entry)).not.toThrow();
});

test('When the status is not declared, then it is a violation naming the declared ones', () => {
  expect(() => run(418, entry)).toThrow(ContractViolation);
  expect(() => run(418, entry)).toThrow(/status not declared; declared: .*201/);
});

test('When the body is out of its schema, then it is a violation', () => {
  expect(() => run(201, { ...entry, documents: 'none' })).toThrow(/: body .*documents/);
});

test('When a required header is missing, then it is a violation naming it', () => {
  expect(() => run(201, entry, { 'Service-Effects': 'none' })).toThrow(/required headers missing: Idempotent-Replay$/);
});

test('When a header value does not match its schema, then it is a violation', () => {
  expect(() => run(201, entry, { ...headers, 'Idempotent-Replay': 'maybe' })).toThrow(/: headers /);
});
