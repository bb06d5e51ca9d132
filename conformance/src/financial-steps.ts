/**
 * Steps 16-19: financial reads (balance, daily summaries, statement entries, with the entries the
 * activation posts), and the error answers a partner must be able to handle (404, 401, 400).
 */
import { guaranteeBody } from './guarantee-steps.js';
import { field } from './session.js';
import type { JourneyState, Step } from './steps.js';

const FINANCIAL = 'ri:financial:read';
const needsFinancialScope = (state: JourneyState) => (state.grantedScopes.includes(FINANCIAL) ? undefined : `the credential was not granted ${FINANCIAL}`);

/** A calendar day in America/Sao_Paulo (the API's dates), `days` from today. */
function day(days: number): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Sao_Paulo' }).format(new Date(Date.now() + days * 86_400_000));
}
const cents = (value: number) => Math.round(value * 100);

export const financialSteps: Step[] = [
  {
    name: 'read the balance',
    needs: ['obtain an access token (client credentials)'],
    skipIf: needsFinancialScope,
    async run(session) {
      const answer = await session.call('GET', '/v1/financial/balance', { expect: [200] });
      const [balance, credits, debits] = ['balance', 'credits', 'debits'].map((name) => Number(field(answer.json, name)));
      session.check(cents(balance!) === cents(credits!) - cents(debits!), `balance must equal credits - debits (${balance} != ${credits} - ${debits})`);
    },
  },
  {
    name: 'read daily summaries (and a reversed range)',
    needs: ['obtain an access token (client credentials)'],
    skipIf: needsFinancialScope,
    async run(session) {
      const answer = await session.call('GET', `/v1/financial/daily-summaries?startDate=${day(-6)}&endDate=${day(0)}`, { expect: [200] });
      const days = Array.isArray(answer.json) ? (answer.json as unknown[]) : [];
      for (let index = 1; index < days.length; index += 1) {
        session.check(field(days[index - 1], 'closingBalance') === field(days[index], 'openingBalance'), `a day's closingBalance is the next day's openingBalance (${String(field(days[index], 'date'))})`);
      }
      const reversed = await session.call('GET', `/v1/financial/daily-summaries?startDate=${day(0)}&endDate=${day(-1)}`, { expect: [400] });
      session.check(field(reversed.json, 'code') === 'invalid_date_range', 'a reversed range is 400 invalid_date_range');
    },
  },
  {
    name: 'read statement entries (with the entries of the activation)',
    needs: ['obtain an access token (client credentials)'],
    skipIf: needsFinancialScope,
    async run(session, state) {
      const answer = await session.call('GET', `/v1/financial/statement-entries?startDate=${day(-1)}&endDate=${day(0)}&type=revenue_shared&type=fee&pageSize=200`, { expect: [200] });
      if (!state.activated || !state.guarantee) return;
      const entries = (field<unknown[]>(answer.json, '_embedded', 'statementEntries') ?? []) as unknown[];
      const descriptions = entries.map((entry) => String(field(entry, 'description')));
      session.check(descriptions.includes(`Revenue share of rental insurance ${state.guarantee.id}`), 'the activation posts the revenue share of the guarantee');
      session.check(descriptions.includes(`Setup fee of rental insurance ${state.guarantee.id}`), 'the activation posts the setup fee of the guarantee');
    },
  },
  {
    name: 'error answers: unknown guarantee, invalid token, invalid body',
    needs: ['obtain an access token (client credentials)'],
    async run(session, state) {
      const missing = await session.call('GET', '/v1/rental-insurances/987654321987', { expect: [404] });
      session.check(field(missing.json, 'code') === 'not_found', 'an unknown guarantee is 404 not_found');
      const unauthorized = await session.call('GET', '/v1/rental-insurances', { anonymous: true, headers: { Authorization: 'Bearer sbx_at_not_a_valid_token' }, expect: [401] });
      session.check(/^Bearer /.test(unauthorized.headers.get('www-authenticate') ?? ''), '401 carries WWW-Authenticate: Bearer');
      const body = { ...guaranteeBody(state, 3500), tenant: { cpfCnpj: '529.982.247-24', name: 'Check Digits Wrong' } };
      const invalid = await session.call('POST', '/v1/rental-insurances', { headers: { 'Idempotency-Key': `${state.runId}-invalid` }, body, expect: [400] });
      session.check(field(invalid.json, 'code') === 'validation_failed', 'a wrong CPF check digit is 400 validation_failed');
      session.check(((field<string[]>(invalid.json, 'details') ?? []) as string[]).some((detail) => detail.startsWith('tenant.cpfCnpj')), 'details name the field (tenant.cpfCnpj)');
    },
  },
];
