/**
 * The world the hostile suites attack: one agency whose guarantee is `approved` and has a
 * co-tenant (so that a valid accept, refuse, patch or co-tenant write WOULD succeed), a few
 * statement entries, and the app listening on a loopback port for the raw client. Every hostile
 * request is built from a valid one with exactly one part made invalid, and must be refused with
 * a 4xx in the specification's error shape without writing anything.
 */
import type { Database } from '../../src/database/prisma-client';
import { postStatementEntry } from '../../src/financial/ledger-service';
import { inUnitOfWork } from '../../src/database/unit-of-work';
import { todayInSaoPaulo } from '../../src/database/column-values';
import { addDays } from '../../src/financial/date-range';
import { backOffice } from './back-office';
import { errorBodyProblem, errorCodeStatus } from './contract-rules';
import { takeSnapshot, snapshotDifference, type DatabaseSnapshot } from './db-snapshot';
import { nextCpf } from './factories';
import { asPartner } from './partner-api';
import { listen, rawRequest, type Listening, type RawRequest, type RawResponse } from './raw-http';
import { useTestApp, type Agency, type World } from './test-app';
import type { Target } from './operation-requests';

export interface HostileWorld {
  /** The test app under attack: its database, and asPartner() for setting up guarantees. */
  readonly testApp: World;
  readonly agency: Agency;
  readonly server: Listening;
  readonly target: Target;
  /** The database before the first attack; a test that writes on purpose takes a new one. */
  baseline: DatabaseSnapshot;
  send(request: RawRequest): Promise<RawResponse>;
}

/** Registers the hostile world of a test file (beforeAll and afterAll) and returns its handle, filled once beforeAll ran. */
export function useHostileWorld(): HostileWorld {
  const testApp = useTestApp({}, { agencies: [{ displayName: 'Hostile suite ERP' }] });
  let state: { server: Listening; target: Target; baseline: DatabaseSnapshot } | undefined;
  beforeAll(async () => {
    const coTenantCpfCnpj = nextCpf();
    const created = await asPartner(testApp).newGuarantee({ coTenants: [{ cpfCnpj: coTenantCpfCnpj, name: 'Co Tenant' }] });
    await backOffice(testApp).approve(created.id);
    const version = (await testApp.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(created.id) } })).version;
    await seedStatement(testApp.db, testApp.agency.companyId);
    const server = await listen(testApp.app);
    testApp.beforeClose(() => server.close());
    state = { server, target: { id: created.id, etag: `W/"${version}"`, coTenantCpfCnpj }, baseline: await takeSnapshot(testApp.db) };
  });
  const ready = () => {
    if (!state) throw new Error('useHostileWorld: the world is built in beforeAll; use it inside tests and hooks');
    return state;
  };
  return {
    testApp,
    get agency() {
      return testApp.agency;
    },
    get server() {
      return ready().server;
    },
    get target() {
      return ready().target;
    },
    get baseline() {
      return ready().baseline;
    },
    set baseline(snapshot) {
      ready().baseline = snapshot;
    },
    send: (request) => rawRequest(ready().server.origin, request),
  };
}

async function seedStatement(db: Database, companyId: string): Promise<void> {
  const today = todayInSaoPaulo();
  await inUnitOfWork(db, async (unit) => {
    await postStatementEntry(unit, { companyId, date: addDays(today, -3), description: 'Charge paid', type: 'charge_paid', amountCents: 350000n });
    await postStatementEntry(unit, { companyId, date: addDays(today, -2), description: 'Fee', type: 'fee', amountCents: 1500n });
  });
}

export interface Expectation {
  /** Allowed statuses (all must be 4xx). */
  status: number | number[];
  /** Allowed error codes; any code documented for the status when absent. */
  code?: string | string[];
}

/** A description of what is wrong with the answer to a hostile request, or null when it is right. */
export function rejectionProblem(response: RawResponse, expected: Expectation): string | null {
  const statuses = Array.isArray(expected.status) ? expected.status : [expected.status];
  if (!statuses.includes(response.status)) {
    return `expected status ${statuses.join(' or ')}, got ${response.status}: ${response.text.slice(0, 300)}`;
  }
  const bodyProblem = errorBodyProblem(response);
  if (bodyProblem) return bodyProblem;
  const code = response.body?.['code'] as string;
  if (expected.code !== undefined) {
    const codes = Array.isArray(expected.code) ? expected.code : [expected.code];
    if (!codes.includes(code)) return `expected code ${codes.join(' or ')}, got ${code}: ${response.text.slice(0, 300)}`;
  } else if (errorCodeStatus[code] !== response.status) {
    return `code ${code} does not belong to status ${response.status}`;
  }
  return null;
}

/** Throws (with the request) unless the answer is the expected rejection and nothing was written. */
export async function expectRejectedWithoutEffect(world: HostileWorld, request: RawRequest, expected: Expectation): Promise<RawResponse> {
  const before = await takeSnapshot(world.testApp.db);
  const response = await world.send(request);
  const problem = rejectionProblem(response, expected);
  const difference = snapshotDifference(before, await takeSnapshot(world.testApp.db));
  if (problem || difference.length > 0) {
    const shown = { ...request, body: typeof request.body === 'string' ? request.body.slice(0, 300) : request.body };
    throw new Error(
      [problem && `response: ${problem}`, difference.length > 0 && `database changed: ${difference.join('; ')}`, `request: ${JSON.stringify(shown)}`]
        .filter(Boolean)
        .join('\n'),
    );
  }
  return response;
}
