/** Co-tenant writes: If-Match, idempotency, duplicates, the limit, and their effect on review and contract. */
import { expectErrorBody } from '../support/error-body';
import { backOffice } from '../support/back-office';
import { nextCpf } from '../support/factories';
import { asPartner, COLLECTION } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const office = backOffice(world);

const formatted = (cpf: string) => `${cpf.slice(0, 3)}.${cpf.slice(3, 6)}.${cpf.slice(6, 9)}-${cpf.slice(9)}`;

describe('When the partner adds a co-tenant', () => {
  test('then the guarantee comes back with it, a new version, a Location and history', async () => {
    const created = await partner.newGuarantee();
    const cpf = nextCpf();
    const response = await partner.addCoTenant(
      created.id,
      {
        cpfCnpj: formatted(cpf),
        name: 'João Souza',
        email: 'joao@example.com',
        birthDate: '1990-01-31',
        phoneNumber: '+55 21 99876-5432',
      },
      { ifMatch: 'W/"1"' },
    );
    expect(response.status).toBe(201);
    expect(response.headers['etag']).toBe('W/"2"');
    expect(response.headers['service-effects']).toBe('none');
    expect(response.headers['idempotent-replay']).toBe('false');
    expect(response.headers['location']).toMatch(new RegExp(`/v1/rental-insurances/${created.id}/co-tenants/${cpf}$`));
    expect(response.body.coTenants).toEqual([
      { cpfCnpj: cpf, name: 'João Souza', email: 'joao@example.com', birthDate: '1990-01-31', phoneNumber: '+5521998765432' },
    ]);
    const history = await partner.historyEntries(created.id);
    expect(history).toHaveLength(2);
    expect(history[1].comment).toContain(`Co-tenant ${cpf} added.`);
  });

  test('then If-Match is required (428), must be current (412) and a replay changes nothing', async () => {
    const created = await partner.newGuarantee();
    const body = { cpfCnpj: nextCpf(), name: 'Ana' };
    const missing = await partner.addCoTenant(created.id, body, { ifMatch: '' }).unset('If-Match');
    expectErrorBody(missing, 428, 'precondition_required');
    const stale = await partner.addCoTenant(created.id, body, { ifMatch: 'W/"7"' });
    expectErrorBody(stale, 412, 'precondition_failed');
    expect(stale.headers['etag']).toBe('W/"1"');
    const first = await partner.addCoTenant(created.id, body, { ifMatch: 'W/"1"', key: 'co-add-1' });
    const replay = await partner.addCoTenant(created.id, body, { ifMatch: 'W/"1"', key: 'co-add-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replay']).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await world.db.coTenant.count({ where: { rentalInsuranceId: BigInt(created.id) } })).toBe(1);
  });

  test("then repeating the tenant's or another co-tenant's CPF is 409 duplicate_co_tenant", async () => {
    const cpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf, name: 'Ana' }] });
    expectErrorBody(
      await partner.addCoTenant(created.id, { cpfCnpj: formatted(cpf), name: 'Again' }, { ifMatch: 'W/"1"' }),
      409,
      'duplicate_co_tenant',
    );
    expectErrorBody(
      await partner.addCoTenant(created.id, { cpfCnpj: created.tenant.cpfCnpj, name: 'Tenant' }, { ifMatch: 'W/"1"' }),
      409,
      'duplicate_co_tenant',
    );
    expect((await partner.get(created.id)).headers['etag']).toBe('W/"1"');
  });

  test('then an 11th co-tenant is 409 co_tenant_limit_reached', async () => {
    const coTenants = Array.from({ length: 10 }, (_, index) => ({ cpfCnpj: nextCpf(), name: `Co-tenant ${index}` }));
    const created = await partner.newGuarantee({ coTenants });
    expectErrorBody(
      await partner.addCoTenant(created.id, { cpfCnpj: nextCpf(), name: 'Eleventh' }, { ifMatch: 'W/"1"' }),
      409,
      'co_tenant_limit_reached',
    );
  });

  test('then an invalid CPF is 400 naming the field, and another company gets 404', async () => {
    const created = await partner.newGuarantee();
    const invalid = await partner.addCoTenant(created.id, { cpfCnpj: '123.456.789-00', name: 'Bad' }, { ifMatch: 'W/"1"' });
    expectErrorBody(invalid, 400, 'validation_failed');
    expect(invalid.body.details).toEqual(['cpfCnpj: invalid check digits']);
    const other = asPartner(world, await world.newAgency());
    expectErrorBody(await other.addCoTenant(created.id, { cpfCnpj: nextCpf(), name: 'X' }, { ifMatch: 'W/"1"' }), 404, 'not_found');
  });
});

describe('When the partner changes or removes a co-tenant', () => {
  test('then a merge patch changes only the fields sent, by formatted or unformatted CPF', async () => {
    const cpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf, name: 'Ana', email: 'ana@example.com' }] });
    const response = await partner.patchCoTenant(created.id, formatted(cpf), { phoneNumber: '11 3456-7890', email: null }, { ifMatch: 'W/"1"' });
    expect(response.status).toBe(200);
    expect(response.headers['etag']).toBe('W/"2"');
    expect(response.body.coTenants[0]).toEqual({ cpfCnpj: cpf, name: 'Ana', email: null, birthDate: null, phoneNumber: '+551134567890' });
    const same = await partner.patchCoTenant(created.id, cpf, { name: 'Ana' }, { ifMatch: 'W/"2"' });
    expect(same.status).toBe(200);
    expect(same.headers['etag']).toBe('W/"2"');
    expect(same.headers['service-effects']).toBe('none');
  });

  test('then cpfCnpj cannot be patched and an unknown co-tenant is 404', async () => {
    const cpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf, name: 'Ana' }] });
    const renamed = await partner.patchCoTenant(created.id, cpf, { cpfCnpj: nextCpf() }, { ifMatch: 'W/"1"' });
    expectErrorBody(renamed, 400, 'validation_failed');
    expect(renamed.body.details).toEqual(['cpfCnpj: cannot be changed (it identifies the person)']);
    expectErrorBody(await partner.patchCoTenant(created.id, nextCpf(), { name: 'X' }, { ifMatch: 'W/"1"' }), 404, 'not_found');
    expectErrorBody(await partner.removeCoTenant(created.id, '12345678901', { ifMatch: 'W/"1"' }), 400, 'validation_failed');
  });

  test('then removing one returns the guarantee without it', async () => {
    const cpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf, name: 'Ana' }] });
    const response = await partner.removeCoTenant(created.id, cpf, { ifMatch: 'W/"1"' });
    expect(response.status).toBe(200);
    expect(response.body.coTenants).toEqual([]);
    expect(response.headers['etag']).toBe('W/"2"');
    expect(response.headers['service-effects']).toBe('none');
  });
});

describe('When a co-tenant changes on a guarantee in review or under contract', () => {
  test('then on information_requested the review restarts', async () => {
    const created = await partner.newGuarantee();
    await office.requestInformation(created.id);
    const response = await partner.addCoTenant(created.id, { cpfCnpj: nextCpf(), name: 'Guarantor' }, { ifMatch: 'W/"2"' });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe('under_review');
    expect(response.headers['service-effects']).toBe('review_started');
  });

  test('then on an accepted guarantee the contract is reissued and signatures reset to pending for the new parties', async () => {
    const created = await partner.newGuarantee();
    await office.approve(created.id);
    await partner.accept(created.id);
    await office.envelopeReady(created.id);
    const etag = (await partner.get(created.id)).headers['etag'] as string;
    const acceptedContract = (await partner.signatureRecords(created.id))[0]!.documentId;
    const cpf = nextCpf();
    const response = await partner.addCoTenant(created.id, { cpfCnpj: cpf, name: 'New co-tenant' }, { ifMatch: etag });
    expect(response.status).toBe(201);
    expect(response.body.status).toBe('accepted');
    expect(response.headers['service-effects']).toBe('contract_reissued');
    const signatures = await partner.signatureRecords(created.id);
    expect(signatures).toEqual([
      // The document record names the reissued contract.
      { role: 'document', documentId: expect.any(Number), cpfCnpj: null, name: null, status: 'pending' },
      { role: 'tenant', documentId: null, cpfCnpj: created.tenant.cpfCnpj, name: 'Maria José da Silva', status: 'pending' },
      { role: 'co_tenant', documentId: null, cpfCnpj: cpf, name: 'New co-tenant', status: 'pending' },
    ]);
    expect(signatures[0]!.documentId).not.toBe(acceptedContract);
  });

  test('then on a closed guarantee every co-tenant write is 409 invalid_state', async () => {
    const cpf = nextCpf();
    const created = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf, name: 'Ana' }] });
    await office.decline(created.id);
    expectErrorBody(await partner.addCoTenant(created.id, { cpfCnpj: nextCpf(), name: 'X' }, { ifMatch: 'W/"2"' }), 409, 'invalid_state');
    expectErrorBody(await partner.patchCoTenant(created.id, cpf, { name: 'Y' }, { ifMatch: 'W/"2"' }), 409, 'invalid_state');
    expectErrorBody(await partner.removeCoTenant(created.id, cpf, { ifMatch: 'W/"2"' }), 409, 'invalid_state');
  });
});

describe('When the partner lists the co-tenants of a guarantee', () => {
  const coTenantsPath = (id: number | string, query = '') => `${COLLECTION}/${id}/co-tenants${query}`;

  test('then they come in the order they were added, paged, as the guarantee shows them', async () => {
    const created = await partner.newGuarantee();
    const empty = await partner.request('get', coTenantsPath(created.id));
    expect(empty.status).toBe(200);
    expect(empty.body._embedded).toEqual({ coTenants: [] });
    // The default 20 is clamped to the list's maximum: a guarantee has at most 10 co-tenants.
    expect(empty.body.page).toEqual({ size: 10, totalElements: 0, totalPages: 0, number: 0 });

    const cpfs = [nextCpf(), nextCpf(), nextCpf()];
    for (const [index, cpf] of cpfs.entries()) {
      const added = await partner.addCoTenant(created.id, { cpfCnpj: cpf, name: `Co-tenant ${index}` }, { ifMatch: `W/"${index + 1}"` });
      expect(added.status).toBe(201);
    }
    const all = await partner.request('get', coTenantsPath(created.id));
    expect(all.status).toBe(200);
    expect(all.body._embedded.coTenants.map((coTenant: { cpfCnpj: string }) => coTenant.cpfCnpj)).toEqual(cpfs);
    expect(all.body._embedded.coTenants[0]).toEqual({ cpfCnpj: cpfs[0], name: 'Co-tenant 0', email: null, birthDate: null, phoneNumber: null });
    expect(all.body._embedded.coTenants).toEqual((await partner.get(created.id)).body.coTenants);

    const second = await partner.request('get', coTenantsPath(created.id, '?page=1&pageSize=2'));
    expect(second.status).toBe(200);
    expect(second.body._embedded.coTenants.map((coTenant: { cpfCnpj: string }) => coTenant.cpfCnpj)).toEqual([cpfs[2]]);
    expect(second.body.page).toEqual({ size: 2, totalElements: 3, totalPages: 2, number: 1 });
    expect(second.body._links.prev.href).toMatch(/\/co-tenants\?page=0&pageSize=2$/);
  });

  test("then another agency's guarantee, or none, is 404 naming the guarantee", async () => {
    const created = await partner.newGuarantee();
    const other = asPartner(world, await world.newAgency());
    for (const response of [await other.request('get', coTenantsPath(created.id)), await partner.request('get', coTenantsPath(999_999_999))]) {
      expectErrorBody(response, 404, 'not_found');
      expect(response.body.message).toBe('Rental insurance not found.');
    }
  });
});
