/**
 * Test helpers of the back-office API (openapi/back-office.yaml): staff and director credentials with
 * tokens, and the staff's client of that API. It is the back office's counterpart of
 * test/support/partner-api.ts, kept apart because it speaks another document to another audience.
 */
import request from 'supertest';
import { createDirectorCredential, createStaffCredential, type CreatedCredential } from '../../src/auth/credentials';
import { STAFF_SCOPES } from '../../src/auth/scopes';
import { newKey } from '../support/factories';
import { issueToken, type Caller } from '../support/partner-api';
import type { TestApp } from '../support/test-app';

export const OPS = '/back-office';

export interface Operator extends CreatedCredential {
  token: string;
  auth: { Authorization: string };
}

let staffCount = 0;

export async function newStaff(t: TestApp, options: { name?: string; scopes?: string[] } = {}): Promise<Operator> {
  staffCount += 1;
  const credential = await createStaffCredential(t.db, t.config.ENVIRONMENT, {
    personName: options.name ?? `Ana Revisora ${staffCount}`,
    scopes: options.scopes ?? [...STAFF_SCOPES],
    createdBy: 'test',
  });
  const token = await issueToken(t, credential.clientId, credential.clientSecret);
  return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
}

export async function newDirector(t: TestApp, companyId: string, name = 'Carlos Souza'): Promise<Operator> {
  const credential = await createDirectorCredential(t.db, t.config.ENVIRONMENT, { companyId, personName: name, createdBy: 'test' });
  const token = await issueToken(t, credential.clientId, credential.clientSecret);
  return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
}

/** Requests to the back-office API with one caller's token (read when the request is sent). */
export function opsClient(t: TestApp, who: Caller | (() => Caller)) {
  const auth = () => (typeof who === 'function' ? who() : who).auth;
  return {
    get: (path: string) => request(t.app).get(`${OPS}${path}`).set(auth()),
    /** `key`: a fresh Idempotency-Key by default; null sends none. */
    post: (path: string, body?: object, key: string | null = newKey()) => {
      const pending = request(t.app).post(`${OPS}${path}`).set(auth());
      const keyed = key === null ? pending : pending.set('Idempotency-Key', key);
      return body === undefined ? keyed : keyed.send(body);
    },
  };
}

/** The path of a guarantee's action under the back-office API. */
export const guaranteePath = (id: number, action: string) => `/v1/rental-insurances/${id}/${action}`;

export const approvalTerms = {
  installmentAmount: 456.04,
  coverageLimit: 136815.3,
  rentCoverageLimit: 105000,
  startBillingDate: '2026-12-01',
};

/** A staff member for the whole test file (created in a beforeAll) and their client of the back-office API. */
export function useStaff(t: TestApp, options: { name?: string; scopes?: string[] } = {}) {
  let staff: Operator | undefined;
  beforeAll(async () => {
    staff = await newStaff(t, options);
  });
  const operator = (): Operator => {
    if (!staff) throw new Error('useStaff: the staff member is created in beforeAll; use it inside tests');
    return staff;
  };
  return { ops: opsClient(t, operator), operator };
}

/** A new agency and its director for the whole test file (created in a beforeAll), and the director's client. */
export function useAgencyDirector(t: TestApp, name = 'Carlos Souza') {
  let created: { director: Operator; companyId: string } | undefined;
  beforeAll(async () => {
    const { companyId } = await t.newAgency();
    created = { companyId, director: await newDirector(t, companyId, name) };
  });
  const ready = () => {
    if (!created) throw new Error('useAgencyDirector: the director is created in beforeAll; use it inside tests');
    return created;
  };
  return {
    ops: opsClient(t, () => ready().director),
    get director() {
      return ready().director;
    },
    get companyId() {
      return ready().companyId;
    },
  };
}
