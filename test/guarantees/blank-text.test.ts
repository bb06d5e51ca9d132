/**
 * Free text (names, address parts, external ids, comments) must hold a character other than
 * whitespace: empty or whitespace-only text is 400 validation_failed naming the field, on every
 * write that carries it, partner API and back office, and nothing is stored.
 */
import { expectErrorBody } from '../support/error-body';
import { cpf } from '../support/factories';
import { asPartner } from '../support/partner-api';
import { countGuarantees, countIdempotencyRecords, storedVersion } from '../support/stored-state';
import { useTestApp } from '../support/test-app';
import { useAgencyDirector, useStaff } from '../back-office/ops-support';
import { baseBody, setAt } from './body-paths';

const world = useTestApp({}, { agencies: 1 });
const partner = asPartner(world);
const { ops: staff } = useStaff(world, { name: 'Rita Souza' });
const director = useAgencyDirector(world, 'Paulo Reis');

const BLANK = 'must contain a character other than whitespace';
/** Spaces, a tab, a line break, a no-break space, an ideographic space, and nothing at all. */
const BLANKS = ['   ', '\t', '\n', '\u00a0\u3000', ''];

function expectBlankRefused(response: Parameters<typeof expectErrorBody>[0], field: string): void {
  expectErrorBody(response, 400, 'validation_failed');
  expect(response.body.details).toEqual([`${field}: ${BLANK}`]);
}

describe('When a partner creates a guarantee with blank text', () => {
  test.each([
    'tenant.name',
    'tenant.profession',
    'property.externalId',
    'property.address.street',
    'property.address.number',
    'property.address.complement',
    'property.address.neighborhood',
    'property.address.city',
    'externalId',
    'coTenants[0].name',
  ])('then a blank %s is 400 naming it, in every kind of blank, and nothing is created', async (field) => {
    const before = { guarantees: await countGuarantees(world, world.agency), keys: await countIdempotencyRecords(world, world.agency) };
    for (const blank of BLANKS) expectBlankRefused(await partner.create(setAt(baseBody(), field, blank)), field);
    expect({ guarantees: await countGuarantees(world, world.agency), keys: await countIdempotencyRecords(world, world.agency) }).toEqual(before);
  });

  test('then text with surrounding spaces and something else is accepted as sent', async () => {
    const response = await partner.create(setAt(setAt(baseBody(), 'tenant.name', '  Maria José  '), 'property.address.complement', null));
    expect(response.status).toBe(201);
    expect(response.body.tenant.name).toBe('  Maria José  ');
  });
});

describe('When a partner changes a guarantee or its co-tenants to blank text', () => {
  test('then each write is 400 naming the field, and the version stays', async () => {
    const guarantee = await partner.newGuarantee({ coTenants: [{ cpfCnpj: cpf(700000001), name: 'Luiza Prado' }] });
    const coTenantCpf = guarantee.coTenants[0]!.cpfCnpj!;
    expectBlankRefused(await partner.patch(guarantee.id, { tenant: { name: ' \t ' } }), 'tenant.name');
    expectBlankRefused(await partner.patch(guarantee.id, { property: { address: { city: '\u00a0' } } }), 'property.address.city');
    expectBlankRefused(await partner.addCoTenant(guarantee.id, { cpfCnpj: cpf(700000002), name: '   ' }), 'name');
    expectBlankRefused(await partner.patchCoTenant(guarantee.id, coTenantCpf, { name: '\n' }), 'name');
    expect(await storedVersion(world, guarantee.id)).toBe(1);
  });

  test('then a blank comment is 400 naming comment, and the history does not grow', async () => {
    const guarantee = await partner.newGuarantee();
    for (const blank of BLANKS) expectBlankRefused(await partner.comment(guarantee.id, blank), 'comment');
    const history = await partner.history(guarantee.id);
    expect(history.body.page.totalElements).toBe(1);
  });
});

describe('When the back office writes blank text', () => {
  test('then a staff comment, a request for information and a statement description are 400 naming their field', async () => {
    const guarantee = await partner.newGuarantee();
    expectBlankRefused(await staff.post(`/v1/rental-insurances/${guarantee.id}/comments`, { comment: '  ' }), 'comment');
    expectBlankRefused(await staff.post(`/v1/rental-insurances/${guarantee.id}/request-information`, { comment: '\t' }), 'comment');
    const entry = { companyId: world.agency.companyId, date: '2026-11-21', type: 'fee', amount: 1, description: ' ' };
    expectBlankRefused(await staff.post('/v1/statement-entries', entry), 'description');
    expect(await world.db.statementEntry.count({ where: { companyId: world.agency.companyId } })).toBe(0);
    expect(await storedVersion(world, guarantee.id)).toBe(1);
  });

  test("then a director's credential with a blank display name is 400 naming displayName", async () => {
    const response = await director.ops.post('/v1/agency/credentials', { displayName: '\u3000 ', scopes: ['ri:rental-insurances:read'] });
    expectBlankRefused(response, 'displayName');
  });
});
