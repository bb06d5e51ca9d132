/**
 * Steps 11-15: the sandbox reviews both guarantees by their magic values (.00 approved, .01
 * declined), refuse is refused outside approved, the partner accepts (and the replay of the
 * accept), the signature records, and the sandbox signers making the guarantee active.
 */
import { CO_TENANT_B, CREATE } from './guarantee-steps.js';
import { embedded, field } from './session.js';
import { effectsOf, etagOf, header, pollGuarantee, type JourneyState, type Step } from './steps.js';

const REVIEW = 'the sandbox reviews by magic value (3500.00 approved, 3500.01 declined)';
const ACCEPT = 'accept the approved proposal';
const id = (state: JourneyState) => state.guarantee!.id;

export const lifecycleSteps: Step[] = [
  {
    name: REVIEW,
    needs: [CREATE, 'create a second guarantee (rentalAmount 3500.01: the sandbox declines it)'],
    async run(session, state) {
      const [approved, declined] = await Promise.all([
        pollGuarantee(session, state, id(state), (status) => status !== 'under_review'),
        pollGuarantee(session, state, state.declinedId!, (status) => status !== 'under_review'),
      ]);
      state.guarantee!.etag = etagOf(session, approved);
      session.check(
        field(approved.json, 'status') === 'approved',
        `rentalAmount 3500.00 must be approved, it is ${String(field(approved.json, 'status'))}`,
      );
      for (const name of ['installmentAmount', 'coverageLimit', 'rentCoverageLimit', 'startBillingDate', 'terminationDate']) {
        session.check(field(approved.json, name) !== null, `an approved guarantee has ${name}`);
      }
      session.check(
        field(declined.json, 'status') === 'declined',
        `rentalAmount 3500.01 must be declined, it is ${String(field(declined.json, 'status'))}`,
      );
    },
  },
  {
    name: 'refuse is refused outside approved (declined guarantee)',
    needs: [REVIEW],
    async run(session, state) {
      const answer = await session.call('POST', `/v1/rental-insurances/${state.declinedId}/refuse`, {
        headers: { 'Idempotency-Key': `${state.runId}-refuse-declined` },
        expect: [409],
      });
      session.check(field(answer.json, 'code') === 'invalid_state', 'refusing a declined guarantee is 409 invalid_state');
    },
  },
  {
    name: ACCEPT,
    needs: [REVIEW],
    async run(session, state) {
      const path = `/v1/rental-insurances/${id(state)}/accept`;
      const key = { 'Idempotency-Key': `${state.runId}-accept` };
      const accepted = await session.call('POST', path, { headers: key, expect: [200] });
      if (accepted.status !== 200) return;
      state.guarantee!.etag = etagOf(session, accepted);
      session.check(field(accepted.json, 'status') === 'accepted', `accept must make it accepted, not ${String(field(accepted.json, 'status'))}`);
      session.check(effectsOf(accepted).includes('signature_requested'), 'accept reports Service-Effects: signature_requested');
      const replay = await session.call('POST', path, { headers: key, expect: [200] });
      session.check(header(replay, 'idempotent-replay') === 'true', 'the same accept again is a replay');
      await session.call('POST', path, { headers: { 'Idempotency-Key': `${state.runId}-accept-again` }, expect: [409] });
    },
  },
  {
    name: 'read the signature records',
    needs: [ACCEPT],
    async run(session, state) {
      const answer = await session.call('GET', `/v1/rental-insurances/${id(state)}/signatures`, { expect: [200] });
      const records = embedded(answer.json, 'signatures');
      const roles = records.map(
        (record) => `${String(field(record, 'role'))}${field(record, 'role') === 'co_tenant' ? `:${String(field(record, 'cpfCnpj'))}` : ''}`,
      );
      for (const role of ['document', 'tenant', `co_tenant:${CO_TENANT_B}`])
        session.check(roles.includes(role), `a signature record for ${role} is expected (found ${roles.join(', ')})`);
      for (const record of records) {
        const pending = field(record, 'status') === 'pending';
        session.check(
          pending === (field(record, 'url') === undefined),
          `a ${String(field(record, 'status'))} record ${pending ? 'has no' : 'has a'} url`,
        );
      }
      // What the signers are asked to sign is a document the partner can download: the contract.
      const contractId = field(
        records.find((record) => field(record, 'role') === 'document'),
        'documentId',
      );
      if (session.check(typeof contractId === 'number', 'the document record names the contract it asks to sign (documentId)')) {
        const contract = await session.call('GET', `/v1/rental-insurances/${id(state)}/documents/${String(contractId)}`, {
          headers: { Accept: '*/*' },
          expect: [200],
        });
        session.check(contract.bytes.subarray(0, 5).toString('latin1') === '%PDF-', 'the contract downloads as a PDF');
      }
    },
  },
  {
    name: 'the sandbox signers sign and the guarantee becomes active',
    needs: [ACCEPT],
    async run(session, state) {
      const active = await pollGuarantee(session, state, id(state), (status) => status !== 'accepted');
      session.check(
        field(active.json, 'status') === 'active',
        `after every signature the guarantee must be active, it is ${String(field(active.json, 'status'))}`,
      );
      const signatures = await session.call('GET', `/v1/rental-insurances/${id(state)}/signatures`, { expect: [200] });
      const statuses = embedded(signatures.json, 'signatures').map((record) => field(record, 'status'));
      session.check(
        statuses.length > 0 && statuses.every((status) => status === 'signed'),
        `every signature record must be signed (found ${statuses.join(', ')})`,
      );
      state.activated = field(active.json, 'status') === 'active';
    },
  },
];
