/** Test helpers of the operations API: staff and director credentials with tokens, and a small client. */
import request from 'supertest';
import { createDirectorCredential, createStaffCredential, type CreatedCredential } from '../../src/auth/credentials';
import { STAFF_SCOPES } from '../../src/auth/scopes';
import { newKey } from '../support/factories';
import { issueToken, type TestApp } from '../support/test-app';

export const OPS = '/operations';

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
  const token = await issueToken(t.app, credential.clientId, credential.clientSecret);
  return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
}

export async function newDirector(t: TestApp, companyId: string, name = 'Carlos Souza'): Promise<Operator> {
  const credential = await createDirectorCredential(t.db, t.config.ENVIRONMENT, { companyId, personName: name, createdBy: 'test' });
  const token = await issueToken(t.app, credential.clientId, credential.clientSecret);
  return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
}

/** Requests to the operations API with one caller's token. */
export function opsClient(t: TestApp, caller: { auth: { Authorization: string } }) {
  return {
    get: (path: string) => request(t.app).get(`${OPS}${path}`).set(caller.auth),
    post: (path: string, body?: object, key = newKey()) => {
      const pending = request(t.app).post(`${OPS}${path}`).set(caller.auth).set('Idempotency-Key', key);
      return body === undefined ? pending : pending.send(body);
    },
  };
}

export const approvalTerms = {
  installmentAmount: 456.04,
  coverageLimit: 136815.3,
  rentCoverageLimit: 105000,
  startBillingDate: '2026-12-01',
};
