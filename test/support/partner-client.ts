/** A partner's view of the API in tests: one method per operation, each a supertest request. */
import request from 'supertest';
import { newKey } from './factories';
import { API, type Agency, type TestApp } from './test-app';

export function partnerClient(t: TestApp, agency: Agency) {
  const base = `${API}/v1/rental-insurances`;
  const write = (method: 'post' | 'patch' | 'delete', path: string, key = newKey()) =>
    request(t.app)[method](`${base}${path}`).set(agency.auth).set('Idempotency-Key', key);
  return {
    get: (id: number) => request(t.app).get(`${base}/${id}`).set(agency.auth),
    history: (id: number) => request(t.app).get(`${base}/${id}/history`).set(agency.auth),
    signatures: (id: number) => request(t.app).get(`${base}/${id}/signatures`).set(agency.auth),
    comment: (id: number, comment: string, key?: string) => write('post', `/${id}/comments`, key).send({ comment }),
    accept: (id: number, key?: string) => write('post', `/${id}/accept`, key),
    refuse: (id: number, key?: string) => write('post', `/${id}/refuse`, key),
    patch: (id: number, etag: string, body: unknown, key?: string) =>
      write('patch', `/${id}`, key).set('If-Match', etag).set('Content-Type', 'application/merge-patch+json').send(JSON.stringify(body)),
    addCoTenant: (id: number, etag: string, body: unknown, key?: string) =>
      write('post', `/${id}/co-tenants`, key).set('If-Match', etag).send(body as object),
    patchCoTenant: (id: number, cpfCnpj: string, etag: string, body: unknown, key?: string) =>
      write('patch', `/${id}/co-tenants/${encodeURIComponent(cpfCnpj)}`, key)
        .set('If-Match', etag)
        .set('Content-Type', 'application/merge-patch+json')
        .send(JSON.stringify(body)),
    removeCoTenant: (id: number, cpfCnpj: string, etag: string, key?: string) =>
      write('delete', `/${id}/co-tenants/${encodeURIComponent(cpfCnpj)}`, key).set('If-Match', etag),
  };
}
