/** HTTP helpers shared by the guarantee test files (not a test file itself). */
import request from 'supertest';
import type { Response } from 'supertest';
import type { Status } from '../../src/guarantees/status-machine';
import { guaranteeBody, newKey } from '../support/factories';
import { API, type Agency, type TestApp } from '../support/test-app';

export const COLLECTION = `${API}/v1/rental-insurances`;
export const itemPath = (id: number | string) => `${COLLECTION}/${id}`;

export const RFC3339_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const GENERATED_CORRELATION_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** POST /v1/rental-insurances with a fresh (or the given) idempotency key. */
export function postGuarantee(t: TestApp, agency: Agency, body: unknown, key: string = newKey()) {
  return request(t.app).post(COLLECTION).set(agency.auth).set('Idempotency-Key', key).send(body as object);
}

export interface PatchOptions {
  ifMatch?: string | null;
  key?: string;
  contentType?: string;
}

/** PATCH /v1/rental-insurances/{id} as a merge patch, If-Match W/"1" unless told otherwise. */
export function patchGuarantee(t: TestApp, agency: Agency, id: number | string, body: unknown, options: PatchOptions = {}) {
  let call = request(t.app)
    .patch(itemPath(id))
    .set(agency.auth)
    .set('Idempotency-Key', options.key ?? newKey())
    .set('Content-Type', options.contentType ?? 'application/merge-patch+json');
  const ifMatch = options.ifMatch === undefined ? 'W/"1"' : options.ifMatch;
  if (ifMatch !== null) call = call.set('If-Match', ifMatch);
  return call.send(typeof body === 'string' ? body : JSON.stringify(body));
}

export function getGuarantee(t: TestApp, agency: Agency, id: number | string, headers: Record<string, string> = {}) {
  return request(t.app).get(itemPath(id)).set(agency.auth).set(headers);
}

/** GET /v1/rental-insurances with the query given as pairs, so that a name may repeat. */
export function listGuarantees(t: TestApp, agency: Agency, query: Array<[string, string | number]> = []) {
  const params = new URLSearchParams(query.map(([name, value]): [string, string] => [name, String(value)]));
  const search = params.toString();
  return request(t.app)
    .get(search ? `${COLLECTION}?${search}` : COLLECTION)
    .set(agency.auth);
}

/** Creates a guarantee through the API and returns its response body. */
export async function created(t: TestApp, agency: Agency, overrides: Record<string, unknown> = {}): Promise<GuaranteeJson> {
  const response = await postGuarantee(t, agency, guaranteeBody(overrides));
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return response.body as GuaranteeJson;
}

/** Tenant overrides merged into the factory's valid tenant. */
export function withTenant(tenant: Record<string, unknown>): Record<string, unknown> {
  const base = guaranteeBody();
  return { tenant: { ...(base['tenant'] as object), ...tenant } };
}

/** Moves a guarantee to a status directly in the database (reviewer actions are not partner endpoints). */
export async function setStatus(t: TestApp, id: number, status: Status): Promise<void> {
  await t.db.rentalInsurance.update({ where: { id: BigInt(id) }, data: { status } });
}

export const countGuarantees = (t: TestApp, agency?: Agency) =>
  t.db.rentalInsurance.count({ where: agency ? { companyId: agency.companyId } : {} });

export const countIdempotencyRecords = (t: TestApp, agency?: Agency) =>
  t.db.idempotencyRecord.count({ where: agency ? { companyId: agency.companyId } : {} });

export async function storedVersion(t: TestApp, id: number): Promise<number> {
  const row = await t.db.rentalInsurance.findUniqueOrThrow({ where: { id: BigInt(id) }, select: { version: true } });
  return row.version;
}

/** The error body carries a `details` entry for `path` (the entry starts with `path: `). */
export function expectDetailFor(response: Response, path: string): void {
  const details = (response.body?.details ?? []) as string[];
  expect(details).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^${escapeRegExp(path)}: .+`))]));
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Today's calendar day in America/Sao_Paulo, shifted by `days`, as YYYY-MM-DD. */
export function saoPauloDay(days = 0): string {
  const today = new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo', year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
  const date = new Date(`${today}T12:00:00.000Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export type GuaranteeJson = {
  id: number;
  externalId: string | null;
  status: Status;
  tenant: Record<string, unknown> & { cpfCnpj: string; name: string };
  property: { externalId: string; type: { code: string; description: string }; address: Record<string, unknown> };
  coTenants: Array<Record<string, unknown>>;
  createdAt: string;
  updatedAt: string;
} & Record<string, unknown>;
