/**
 * Steps 2-10: the published document, create (and the idempotent replay), read, list filters,
 * merge patch with If-Match, comments, history and co-tenants. Every exchange is validated against
 * the contract by the session; the checks here are the behaviour the document promises.
 */
import { embedded, field } from './session.js';
import { effectsOf, etagOf, header, preconditionedWrite, versionOf, type JourneyState, type Step } from './steps.js';

export const TENANT_CPF = '529.982.247-25';
const CO_TENANT_A = '11144477735';
export const CO_TENANT_B = '39053344705';
const MERGE_PATCH = 'application/merge-patch+json';

export const CREATE = 'create a guarantee (rentalAmount 3500.00: the sandbox approves it)';

export function guaranteeBody(state: JourneyState, rentalAmount: number) {
  return {
    externalId: `CONF-${state.runId}`,
    tenant: { cpfCnpj: TENANT_CPF, name: 'Maria José da Silva', email: 'maria.silva@example.com', birthDate: '1988-04-12', phoneNumber: '(11) 98765-4321', profession: 'Engenheira civil' },
    property: {
      externalId: `CONF-${state.runId}-${rentalAmount}`,
      type: 'apartment',
      address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', complement: 'Apto 82', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    },
    coTenants: [{ cpfCnpj: '111.444.777-35', name: 'João Pereira Santos', email: 'joao.santos@example.com' }],
    rentalAmount,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    setupFee: 150,
  };
}

const write = (state: JourneyState, label: string) => ({ 'Idempotency-Key': `${state.runId}-${label}` });
const id = (state: JourneyState) => state.guarantee!.id;

export const guaranteeSteps: Step[] = [
  {
    name: 'read the published contract (openapi.json, no token)',
    async run(session) {
      const answer = await session.call('GET', '/openapi.json', { anonymous: true, expect: [200] });
      const version = field<string>(answer.json, 'info', 'version');
      session.check(!version || version === session.contract.version || version.split('.')[0] === session.contract.version.split('.')[0], `the deployment publishes ${version}, another major version than the contract checked (${session.contract.version})`);
    },
  },
  {
    name: CREATE,
    needs: ['obtain an access token (client credentials)'],
    async run(session, state) {
      const answer = await session.call('POST', '/v1/rental-insurances', { headers: write(state, 'create'), body: guaranteeBody(state, 3500), expect: [201] });
      if (answer.status !== 201) return;
      state.guarantee = { id: Number(field(answer.json, 'id')), etag: etagOf(session, answer) };
      session.check(field(answer.json, 'status') === 'under_review', `a new guarantee must be under_review, not ${String(field(answer.json, 'status'))}`);
      session.check(versionOf(state.guarantee.etag) === 1, `a new guarantee's ETag is W/"1", not ${state.guarantee.etag}`);
      session.check(header(answer, 'idempotent-replay') === 'false', 'a first execution answers Idempotent-Replay: false');
      session.check(effectsOf(answer).includes('review_started'), 'Service-Effects must report review_started');
      session.check(field(answer.json, 'tenant', 'cpfCnpj') === '52998224725', 'cpfCnpj is returned without punctuation');
      session.check(field(answer.json, 'coTenants', 0, 'cpfCnpj') === CO_TENANT_A, 'the co-tenant of the request is on the guarantee');
    },
  },
  {
    name: 'create a second guarantee (rentalAmount 3500.01: the sandbox declines it)',
    needs: [CREATE],
    async run(session, state) {
      const answer = await session.call('POST', '/v1/rental-insurances', { headers: write(state, 'create-declined'), body: guaranteeBody(state, 3500.01), expect: [201] });
      if (answer.status === 201) state.declinedId = Number(field(answer.json, 'id'));
    },
  },
  {
    name: 'repeat the creation with the same Idempotency-Key (replay)',
    needs: [CREATE],
    async run(session, state) {
      const replay = await session.call('POST', '/v1/rental-insurances', { headers: write(state, 'create'), body: guaranteeBody(state, 3500), expect: [201] });
      session.check(header(replay, 'idempotent-replay') === 'true', 'the same key and body must answer Idempotent-Replay: true');
      session.check(field(replay.json, 'id') === id(state), 'the replay must answer the same guarantee');
      await session.call('POST', '/v1/rental-insurances', { headers: write(state, 'create'), body: guaranteeBody(state, 3600), expect: [400] });
    },
  },
  {
    name: 'read the guarantee (and poll it with If-None-Match)',
    needs: [CREATE],
    async run(session, state) {
      const answer = await session.call('GET', `/v1/rental-insurances/${id(state)}`, { expect: [200] });
      const etag = etagOf(session, answer);
      session.check(field(answer.json, 'id') === id(state), 'the guarantee read is not the one created');
      await session.call('GET', `/v1/rental-insurances/${id(state)}`, { headers: { 'If-None-Match': etag }, expect: [304, 200] });
      await session.call('GET', '/v1/rental-insurances/987654321987', { expect: [404] });
    },
  },
  {
    name: 'list guarantees with filters',
    needs: [CREATE],
    async run(session, state) {
      const reference = encodeURIComponent(`CONF-${state.runId}-3500`);
      const count = async (query: string, expected: number, label: string) => {
        const answer = await session.call('GET', `/v1/rental-insurances?${query}`, { expect: [200] });
        const total = field<number>(answer.json, 'page', 'totalElements');
        session.check(total === expected, `${label}: expected ${expected} guarantee(s), the page says ${total}`);
        return answer;
      };
      const one = await count(`propertyExternalId=${reference}`, 1, 'propertyExternalId');
      session.check(field(one.json, '_embedded', 'rentalInsurances', 0, 'id') === id(state), 'propertyExternalId must find the guarantee created');
      await count(`propertyExternalId=${reference}&tenantCpfCnpj=${encodeURIComponent(TENANT_CPF)}`, 1, 'tenantCpfCnpj (punctuated)');
      await count(`propertyExternalId=${reference}&tenantName=jose`, 1, 'tenantName "jose" (accent-insensitive) finds José');
      await count(`propertyExternalId=${reference}&status=under_review&status=approved`, 1, 'repeated status values (OR)');
      await count(`propertyExternalId=${reference}&status=declined`, 0, 'status=declined');
      const page = await session.call('GET', '/v1/rental-insurances?page=0&pageSize=1', { expect: [200] });
      session.check(field(page.json, 'page', 'size') === 1, 'pageSize=1 must give page.size 1');
    },
  },
  {
    name: 'change the guarantee with a merge patch and If-Match',
    needs: [CREATE],
    async run(session, state) {
      const path = `/v1/rental-insurances/${id(state)}`;
      await session.call('PATCH', path, { headers: write(state, 'patch-no-if-match'), body: { tenant: { profession: 'Arquiteta' } }, contentType: MERGE_PATCH, expect: [428] });
      await session.call('PATCH', path, { headers: { ...write(state, 'patch-stale'), 'If-Match': 'W/"0"' }, body: { tenant: { profession: 'Arquiteta' } }, contentType: MERGE_PATCH, expect: [412] });
      const before = versionOf(state.guarantee!.etag);
      const answer = await preconditionedWrite(session, state, (etag, key) =>
        session.call('PATCH', path, { headers: { 'Idempotency-Key': key, 'If-Match': etag }, body: { tenant: { profession: 'Arquiteta' } }, contentType: MERGE_PATCH, expect: [200, 412] }),
      );
      if (answer.status !== 200) return;
      session.check(field(answer.json, 'tenant', 'profession') === 'Arquiteta', 'the patched field must change');
      session.check(versionOf(state.guarantee!.etag) > before, 'a change must give a new ETag');
    },
  },
  {
    name: 'comment on the guarantee',
    needs: [CREATE],
    async run(session, state) {
      const answer = await session.call('POST', `/v1/rental-insurances/${id(state)}/comments`, { headers: write(state, 'comment'), body: { comment: `Conformance run ${state.runId}` }, expect: [201] });
      session.check(field(answer.json, 'comment') === `Conformance run ${state.runId}`, 'the history entry must carry the comment');
      session.check(field(answer.json, 'creator', 'serviceAccount') === true, "a partner's comment has creator.serviceAccount true");
    },
  },
  {
    name: 'read the history',
    needs: [CREATE],
    async run(session, state) {
      const answer = await session.call('GET', `/v1/rental-insurances/${id(state)}/history?pageSize=200`, { expect: [200] });
      const entries = embedded(answer.json, 'historyEntries');
      session.check(field(entries[0], 'status', 'code') === 'under_review' && field(entries[0], 'previousStatus', 'code') === null, 'the first entry is the creation (null to under_review)');
      session.check(entries.some((entry) => field(entry, 'comment') === `Conformance run ${state.runId}`), 'the comment must be in the history');
      const times = entries.map((entry) => String(field(entry, 'createdAt')));
      session.check(times.every((time, index) => index === 0 || times[index - 1]! <= time), 'history entries are in chronological order');
    },
  },
  {
    name: 'add, change and remove co-tenants with If-Match',
    needs: [CREATE],
    async run(session, state) {
      const base = `/v1/rental-insurances/${id(state)}/co-tenants`;
      await session.call('POST', base, { headers: write(state, 'co-tenant-no-if-match'), body: { cpfCnpj: CO_TENANT_B, name: 'Ana Beatriz Costa' }, expect: [428] });
      const added = await preconditionedWrite(session, state, (etag, key) =>
        session.call('POST', base, { headers: { 'Idempotency-Key': key, 'If-Match': etag }, body: { cpfCnpj: CO_TENANT_B, name: 'Ana Beatriz Costa' }, expect: [201, 412] }),
      );
      session.check(((field<unknown[]>(added.json, 'coTenants') ?? []) as unknown[]).some((coTenant) => field(coTenant, 'cpfCnpj') === CO_TENANT_B), 'the added co-tenant must be on the guarantee');
      const changed = await preconditionedWrite(session, state, (etag, key) =>
        session.call('PATCH', `${base}/${CO_TENANT_B}`, { headers: { 'Idempotency-Key': key, 'If-Match': etag }, body: { phoneNumber: '(21) 99876-5432' }, contentType: MERGE_PATCH, expect: [200, 412] }),
      );
      const phone = ((field<unknown[]>(changed.json, 'coTenants') ?? []) as unknown[]).map((coTenant) => field(coTenant, 'phoneNumber'));
      session.check(phone.includes('+5521998765432'), 'the phone number must be returned in E.164');
      await session.call('POST', base, { headers: { ...write(state, 'co-tenant-duplicate'), 'If-Match': state.guarantee!.etag }, body: { cpfCnpj: TENANT_CPF, name: 'Maria José da Silva' }, expect: [409, 412] });
      const removed = await preconditionedWrite(session, state, (etag, key) =>
        session.call('DELETE', `${base}/${CO_TENANT_A}`, { headers: { 'Idempotency-Key': key, 'If-Match': etag }, expect: [200, 412] }),
      );
      session.check(!((field<unknown[]>(removed.json, 'coTenants') ?? []) as unknown[]).some((coTenant) => field(coTenant, 'cpfCnpj') === CO_TENANT_A), 'the removed co-tenant must be gone');
    },
  },
];

