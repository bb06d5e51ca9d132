import request from 'supertest';
import { startTestApp, API, type TestApp, type Agency } from '../support/test-app';
import { createGuarantee, guaranteeBody, newKey, nextCpf } from '../support/factories';
let t: TestApp; let a: Agency;
beforeAll(async () => { t = await startTestApp({ LOG_LEVEL: 'error' }); a = await t.newAgency(); });
afterAll(() => t.close());
test('probe', async () => {
  const g = await createGuarantee(t, a, { coTenants: [{ cpfCnpj: nextCpf(), name: 'X' }] });
  const base = `${API}/v1/rental-insurances`;
  await request(t.app).get(`${base}/%ZZ`).set(a.auth);
  await request(t.app).post(`${base}/${g.id}/comments`).set(a.auth).set('Idempotency-Key', newKey()).set('Content-Type','application/json').send('{"comment":"a\\ud800b"}');
  await request(t.app).get(`${API}/v1/financial/daily-summaries?startDate=0000-01-01&endDate=0000-01-01`).set(a.auth);
  await request(t.app).post(`${base}/${g.id}/comments`).set(a.auth).set('Idempotency-Key', newKey()).set('Content-Type','application/json').set('Content-Encoding','gzip').send('{"comment":"x"}');
  await request(t.app).get(`${base}?tenantName=%00`).set(a.auth);
});
