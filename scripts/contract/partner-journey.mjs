/**
 * The scripted partner journey of prism-journey.mjs: every step goes through Prism, which validates
 * the request and the answer against the contract. Requests that must fail are valid by the schema
 * and wrong by the rules (check digits, date order, an unknown id, an unknown token), so that Prism
 * forwards them and validates the answer.
 */
import { randomUUID } from 'node:crypto';

const CPF_TENANT = '52998224725';
const CPF_CO_TENANT = '11144477735';
const CPF_CO_TENANT_2 = '39053344705';

function guaranteeBody(overrides = {}) {
  return {
    externalId: 'CTR-JOURNEY-1',
    tenant: {
      cpfCnpj: '529.982.247-25',
      name: 'Maria José da Silva',
      email: 'maria.silva@example.com',
      birthDate: '1988-04-12',
      phoneNumber: '(11) 98765-4321',
      profession: 'Engenheira civil',
    },
    property: {
      externalId: 'IMV-JOURNEY-1',
      type: 'apartment',
      address: {
        zipCode: '01310-100',
        street: 'Avenida Paulista',
        number: '1000',
        complement: 'Apto 82',
        neighborhood: 'Bela Vista',
        city: 'São Paulo',
        state: 'SP',
      },
    },
    coTenants: [
      {
        cpfCnpj: CPF_CO_TENANT,
        name: 'João Pereira Santos',
        email: 'joao.santos@example.com',
        birthDate: '1986-09-30',
        phoneNumber: '+5511912345678',
      },
    ],
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    setupFee: 150,
    ...overrides,
  };
}

/** The journey: each step goes through Prism; returns the list of problems found. */
export async function journey(prism, token) {
  const problems = [];
  const log = [];
  const auth = { Authorization: `Bearer ${token}` };
  const call = async (label, method, pathAndQuery, { headers = {}, body, expect } = {}) => {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      init.headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${prism}${pathAndQuery}`, init);
    const text = await response.text();
    const violations = response.headers.get('sl-violations');
    const prismError =
      (response.headers.get('content-type') ?? '').startsWith('application/problem+json') ||
      /^https:\/\/stoplight\.io\/prism\/errors#/.test(text.slice(0, 200));
    const json = (() => {
      try {
        return text ? JSON.parse(text) : undefined;
      } catch {
        return undefined;
      }
    })();
    const ok = expect.includes(response.status) && !violations && !prismError;
    log.push(`  ${ok ? 'ok  ' : 'FAIL'} ${response.status} ${method.padEnd(6)} ${pathAndQuery.split('?')[0]}  ${label}`);
    if (violations) problems.push(`${label}: Prism reports violations: ${violations}`);
    if (prismError) problems.push(`${label}: Prism answered ${response.status} itself: ${text.slice(0, 2000)}`);
    if (!expect.includes(response.status)) problems.push(`${label}: expected ${expect.join(' or ')}, got ${response.status}: ${text.slice(0, 500)}`);
    return { status: response.status, headers: response.headers, json, text };
  };
  const write = (key = randomUUID()) => ({ ...auth, 'Idempotency-Key': key });

  // Guarantees
  const createKey = randomUUID();
  const created = await call('create a guarantee', 'POST', '/v1/rental-insurances', {
    headers: write(createKey),
    body: guaranteeBody(),
    expect: [201],
  });
  const id = created.json?.id;
  if (!id) return { problems: [...problems, 'create returned no id: the rest of the journey cannot run'], log };
  const replay = await call('replay the creation (same key and body)', 'POST', '/v1/rental-insurances', {
    headers: write(createKey),
    body: guaranteeBody(),
    expect: [201],
  });
  if (replay.headers.get('idempotent-replay') !== 'true' || replay.json?.id !== id)
    problems.push('idempotent replay: expected Idempotent-Replay: true and the same guarantee');
  await call('same key, other body', 'POST', '/v1/rental-insurances', {
    headers: write(createKey),
    body: guaranteeBody({ rentalAmount: 3600 }),
    expect: [400],
  });
  await call('create with wrong CPF check digits', 'POST', '/v1/rental-insurances', {
    headers: write(),
    body: guaranteeBody({ tenant: { ...guaranteeBody().tenant, cpfCnpj: '529.982.247-24' } }),
    expect: [400],
  });
  await call('create a second guarantee', 'POST', '/v1/rental-insurances', {
    headers: write(),
    body: guaranteeBody({
      externalId: null,
      coTenants: [],
      tenant: { cpfCnpj: '11222333000181', name: 'Padaria Bela Vista Ltda' },
      rentalAmount: 12000,
    }),
    expect: [201],
  });

  const read = await call('read it', 'GET', `/v1/rental-insurances/${id}`, { headers: auth, expect: [200] });
  await call('poll it with If-None-Match', 'GET', `/v1/rental-insurances/${id}`, {
    headers: { ...auth, 'If-None-Match': read.headers.get('etag') ?? 'W/"1"' },
    expect: [304],
  });
  await call('read an unknown guarantee', 'GET', '/v1/rental-insurances/987654321', { headers: auth, expect: [404] });
  await call('read without a valid token', 'GET', `/v1/rental-insurances/${id}`, {
    headers: { Authorization: 'Bearer sbx_at_not_a_token' },
    expect: [401],
  });

  await call('list page 0', 'GET', '/v1/rental-insurances', { headers: auth, expect: [200] });
  await call(
    'list with every filter',
    'GET',
    `/v1/rental-insurances?tenantName=jose&tenantCpfCnpj=${CPF_TENANT}&propertyExternalId=IMV-JOURNEY-1&status=under_review&status=approved&page=0&pageSize=5`,
    { headers: auth, expect: [200] },
  );
  await call('list beyond the last page, clamped page size', 'GET', '/v1/rental-insurances?page=9&pageSize=500', { headers: auth, expect: [200] });

  const patchHeaders = (etag) => ({ ...write(), 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' });
  const patched = await call('merge-patch with If-Match', 'PATCH', `/v1/rental-insurances/${id}`, {
    headers: patchHeaders(read.headers.get('etag') ?? 'W/"1"'),
    body: { rentalAmount: 3700, tenant: { profession: 'Arquiteta' }, property: { address: { complement: null } } },
    expect: [200],
  });
  await call('merge-patch with a stale If-Match', 'PATCH', `/v1/rental-insurances/${id}`, {
    headers: patchHeaders('W/"1"'),
    body: { externalId: 'CTR-JOURNEY-2' },
    expect: [412],
  });
  let etag = patched.headers.get('etag') ?? 'W/"2"';

  await call('comment', 'POST', `/v1/rental-insurances/${id}/comments`, {
    headers: write(),
    body: { comment: 'O locatário enviou o comprovante de renda.' },
    expect: [201],
  });
  await call('history', 'GET', `/v1/rental-insurances/${id}/history`, { headers: auth, expect: [200] });
  await call('signatures (none before accepting)', 'GET', `/v1/rental-insurances/${id}/signatures`, { headers: auth, expect: [200] });
  await call('accept while under review', 'POST', `/v1/rental-insurances/${id}/accept`, { headers: write(), expect: [409] });
  await call('refuse while under review', 'POST', `/v1/rental-insurances/${id}/refuse`, { headers: write(), expect: [409] });

  // Co-tenants
  const added = await call('add a co-tenant', 'POST', `/v1/rental-insurances/${id}/co-tenants`, {
    headers: { ...write(), 'If-Match': etag },
    body: { cpfCnpj: CPF_CO_TENANT_2, name: 'Ana Beatriz Costa', email: 'ana.costa@example.com' },
    expect: [201],
  });
  etag = added.headers.get('etag') ?? etag;
  const changed = await call('merge-patch a co-tenant', 'PATCH', `/v1/rental-insurances/${id}/co-tenants/${CPF_CO_TENANT_2}`, {
    headers: patchHeaders(etag),
    body: { phoneNumber: '(21) 99876-5432' },
    expect: [200],
  });
  etag = changed.headers.get('etag') ?? etag;
  await call('add a duplicate co-tenant', 'POST', `/v1/rental-insurances/${id}/co-tenants`, {
    headers: { ...write(), 'If-Match': etag },
    body: { cpfCnpj: CPF_TENANT, name: 'Maria José da Silva' },
    expect: [409],
  });
  await call('remove a co-tenant', 'DELETE', `/v1/rental-insurances/${id}/co-tenants/${CPF_CO_TENANT}`, {
    headers: { ...write(), 'If-Match': etag },
    expect: [200],
  });

  // Financial records
  await call('balance', 'GET', '/v1/financial/balance', { headers: auth, expect: [200] });
  await call('daily summaries', 'GET', '/v1/financial/daily-summaries?startDate=2025-01-01&endDate=2025-01-31', { headers: auth, expect: [200] });
  await call(
    'statement entries with type filter',
    'GET',
    '/v1/financial/statement-entries?startDate=2025-01-01&endDate=2025-12-31&type=fee&type=charge_paid&pageSize=10',
    { headers: auth, expect: [200] },
  );
  await call('daily summaries, dates reversed', 'GET', '/v1/financial/daily-summaries?startDate=2026-03-02&endDate=2026-03-01', {
    headers: auth,
    expect: [400],
  });

  // The published contract
  await call('openapi.json (public)', 'GET', '/openapi.json', { expect: [200] });
  return { problems, log };
}
