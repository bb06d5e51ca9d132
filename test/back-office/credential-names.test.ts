/**
 * A credential's display name signs its writes in the history a partner reads: a director cannot
 * give an integration the name the service or its staff sign with (`system`, `Sandbox reviewer`, a
 * staff member's name), nor a look-alike of one, and gets a 400 that names the field.
 */
import { expectDetailFor, expectErrorBody } from '../support/error-body';
import { useTestApp } from '../support/test-app';
import { newStaff, useAgencyDirector } from './ops-support';

const world = useTestApp();
const agency = useAgencyDirector(world, 'Carlos Souza');
const SCOPES = ['ri:rental-insurances:read'];

const credentialsOfAgency = () => world.db.credential.count({ where: { companyId: agency.companyId } });
const create = (displayName: string) => agency.ops.post('/v1/agency/credentials', { displayName, scopes: SCOPES });

describe("When a director names a credential like the service's own signatures", () => {
  test.each([
    ['system'],
    ['System'],
    ['  SYSTEM  '],
    ['s y s t e m'],
    ['system.'],
    ['sys\u200btem'], // a zero-width space inside
    ['ѕуѕtеm'], // Cyrillic ѕ, у, е
    ['Ｓｙｓｔｅｍ'], // full-width
    ['𝐬𝐲𝐬𝐭𝐞𝐦'], // mathematical bold
    ['sÿstem'],
    ['Sandbox reviewer'],
    ['sandbox-reviewer'],
    ['SANDBOX  REVIEWER'],
    ['Ѕаndbох rеviеwеr'], // Cyrillic Ѕ, а, о, х, е
  ])('then %j is 400 display_name_reserved, naming displayName, and nothing is created', async (displayName) => {
    const before = await credentialsOfAgency();
    const response = await create(displayName);
    expectErrorBody(response, 400, 'display_name_reserved');
    expectDetailFor(response, 'displayName');
    expect(await credentialsOfAgency()).toBe(before);
  });
});

describe("When a director names a credential like a staff member who signs the agency's history", () => {
  test("then the staff member's name and its look-alikes are refused, revoked staff included", async () => {
    await newStaff(world, { name: 'Beatriz Nogueira' });
    const revoked = await newStaff(world, { name: 'Otávio Lins' });
    await world.db.credential.update({ where: { id: revoked.credentialId }, data: { revokedAt: new Date() } });
    for (const displayName of ['Beatriz Nogueira', 'beatriz  nogueira', 'Beatriz Nogueíra', 'Вeatriz Nоgueira', 'Otavio Lins']) {
      const response = await create(displayName);
      expectErrorBody(response, 400, 'display_name_reserved');
      expectDetailFor(response, 'displayName');
    }
  });
});

describe('When a director chooses an ordinary name', () => {
  test.each([['Sistema ERP'], ['Systems Integration'], ['ERP - system'], ['Beatriz Nogueira Imóveis']])(
    'then %j is accepted and signs the integration’s writes',
    async (displayName) => {
      const response = await create(displayName);
      expect(response.status).toBe(201);
      expect(response.body.credential.displayName).toBe(displayName);
    },
  );
});
