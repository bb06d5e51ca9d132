/**
 * Agencies never see each other. Driven by the operation table, derived from openapi/partner.yaml
 * (a new operation whose path names no resource fails the second test until it is given an
 * isolation check):
 *  - every id-bearing operation: agency B's fully valid request on agency A's guarantee gets
 *    404 not_found, answered exactly like a guarantee that does not exist (same status, code,
 *    message, details, body fields and header names), never 403, never data, never 304/412, and
 *    writes nothing, while the same request from A succeeds;
 *  - public operations answer the same document to anyone;
 *  - lists, financial figures and idempotency keys: tenant-isolation-lists-and-keys.test.ts;
 *  - revoked credentials and secrets: tenant-isolation-revocation.test.ts.
 */
import { errorBodyProblem } from '../support/contract-rules';
import { snapshotDifference, takeSnapshot } from '../support/db-snapshot';
import { inputProblems, OPERATIONS, type OperationEntry } from '../support/operation-table';
import { pathOf, validRequest } from '../support/operation-requests';
import { nextCpf } from '../support/factories';
import type { RawRequest, RawResponse } from '../support/raw-http';
import { useIsolationWorld } from './isolation-world';

const { world, agencyA, agencyB, approvedGuaranteeOfA, send } = useIsolationWorld();

/**
 * How the isolation of each operation whose path names no resource is shown. Every operation whose
 * path names one (`{`) is shown here, by a foreign id, without being listed.
 */
const ISOLATION: Record<string, 'list filters' | 'idempotency keys' | 'financial' | 'public, no agency data'> = {
  listRentalInsurances: 'list filters',
  createRentalInsurance: 'idempotency keys',
  getFinancialBalance: 'financial',
  listDailySummaries: 'financial',
  listStatementEntries: 'financial',
  getOpenApiJson: 'public, no agency data',
  getOpenApiYaml: 'public, no agency data',
  getApiReference: 'public, no agency data',
};

const namesResource = (entry: OperationEntry) => entry.path.includes('{');
const isolationOf = (entry: OperationEntry) => (namesResource(entry) ? 'foreign id' : ISOLATION[entry.operationId]);

describe('The operation table', () => {
  test('can send every operation of openapi/partner.yaml validly, and has inputs of no other', () => {
    expect(inputProblems()).toEqual([]);
  });

  test('gives every operation whose path names no resource an isolation check, and lists no other', () => {
    const unnamed = OPERATIONS.filter((entry) => !namesResource(entry)).map((entry) => entry.operationId);
    expect(unnamed.filter((operationId) => !(operationId in ISOLATION))).toEqual([]);
    expect(Object.keys(ISOLATION).filter((operationId) => !unnamed.includes(operationId))).toEqual([]);
  });
});

const VOLATILE_HEADERS = new Set(['date', 'x-correlation-id', 'content-length', 'connection', 'keep-alive']);

/** What an answer reveals, without what legitimately differs between two requests. */
function revealed(response: RawResponse, id: number | string) {
  const body = { ...(response.body ?? {}) } as Record<string, unknown>;
  return {
    status: response.status,
    code: body['code'],
    message: String(body['message']).split(String(id)).join('<id>'),
    details: body['details'],
    fields: Object.keys(body).sort(),
    headers: Object.keys(response.headers)
      .filter((name) => !VOLATILE_HEADERS.has(name))
      .sort(),
  };
}

const MISSING_ID = 8_000_000_000_001;

describe.each(OPERATIONS.filter((entry) => isolationOf(entry) === 'foreign id').map((entry) => [entry.operationId, entry] as const))(
  "%s on another agency's guarantee",
  (_id, entry) => {
    test('is 404 not_found exactly like a missing id, writes nothing, and succeeds for the owner', async () => {
      const target = await approvedGuaranteeOfA();
      const before = await takeSnapshot(world.db);

      const foreign = await send(validRequest(entry, target, agencyB().auth.Authorization));
      const missing = await send(validRequest(entry, { ...target, id: MISSING_ID }, agencyB().auth.Authorization));
      expect({ status: foreign.status, code: foreign.body?.['code'], problem: errorBodyProblem(foreign) }).toEqual({
        status: 404,
        code: 'not_found',
        problem: null,
      });
      expect(revealed(foreign, target.id)).toEqual(revealed(missing, MISSING_ID));
      expect(foreign.headers['etag']).toBeUndefined();
      expect(foreign.text).not.toMatch(/Maria Isolada|Co Tenant of A|Agency A/);

      // Variations that would reveal existence if checked before ownership.
      const variations: Array<[string, (built: RawRequest & { headers: Record<string, string> }) => void]> = [['as is', () => undefined]];
      if (entry.ifMatch) variations.push(['stale If-Match', (built) => void (built.headers['If-Match'] = 'W/"999"')]);
      if (entry.operationId === 'getRentalInsurance') {
        variations.push(['If-None-Match of the current version', (built) => void (built.headers['If-None-Match'] = target.etag)]);
        variations.push(['If-None-Match *', (built) => void (built.headers['If-None-Match'] = '*')]);
      }
      if (entry.coTenantPath)
        variations.push(['a CPF that is no co-tenant', (built) => void (built.path = built.path.replace(target.coTenantCpfCnpj, nextCpf()))]);
      for (const [name, vary] of variations) {
        const onForeign = validRequest(entry, target, agencyB().auth.Authorization);
        const onMissing = validRequest(entry, { ...target, id: MISSING_ID }, agencyB().auth.Authorization);
        vary(onForeign);
        vary(onMissing);
        const [a, b] = [await send(onForeign), await send(onMissing)];
        expect({ name, ...revealed(a, target.id) }).toEqual({ name, ...revealed(b, MISSING_ID) });
        expect({ name, status: a.status }).toEqual({ name, status: 404 });
      }
      // A body B got wrong is answered the same for a foreign and for a missing id.
      if (entry.mediaType) {
        const onForeign = validRequest(entry, target, agencyB().auth.Authorization);
        const onMissing = validRequest(entry, { ...target, id: MISSING_ID }, agencyB().auth.Authorization);
        onForeign.body = onMissing.body = '{"unknownField": 1}';
        expect(revealed(await send(onForeign), target.id)).toEqual(revealed(await send(onMissing), MISSING_ID));
      }
      expect(snapshotDifference(before, await takeSnapshot(world.db))).toEqual([]);

      const own = await send(validRequest(entry, target, agencyA().auth.Authorization));
      expect({ status: own.status, text: own.status < 300 ? '' : own.text }).toEqual({
        status: own.status >= 200 && own.status < 300 ? own.status : '2xx',
        text: '',
      });
    });
  },
);

describe('Public operations carry no agency data', () => {
  test.each(OPERATIONS.filter((entry) => isolationOf(entry) === 'public, no agency data').map((entry) => [entry.operationId, entry] as const))(
    '%s answers the same document to anyone, without a token',
    async (_id, entry) => {
      const anonymous = await send({ method: 'GET', path: pathOf(entry, { id: 0, coTenantCpfCnpj: '' }) });
      const withToken = await send({ method: 'GET', path: pathOf(entry, { id: 0, coTenantCpfCnpj: '' }), headers: agencyA().auth });
      expect(anonymous.status).toBe(200);
      expect(withToken.text).toBe(anonymous.text);
      expect(anonymous.text).not.toMatch(/Agency A ERP|Maria Isolada/);
    },
  );
});
