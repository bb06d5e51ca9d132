/**
 * Issue 37: the admin tool invites people to the console with a one-time enrolment link, re-invites a
 * person who lost their passkeys (ending their sessions), lists people, and shows each secret's last
 * use in `credentials list`.
 */
import request from 'supertest';
import { credentialCommands } from '../../src/back-office/cli/credential-commands';
import { peopleCommands } from '../../src/back-office/cli/people-commands';
import { runAdminTool } from '../support/admin-tool';
import { TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

// With DATABASE_URL set the tool never starts an embedded server (ESM-only, which Jest cannot load).
jest.mock('../../src/database/embedded-server', () => ({
  embeddedUrl: () => 'postgresql://unused@localhost/unused',
  startEmbeddedServer: () => Promise.reject(new Error('no embedded server in this test')),
}));

// Each run of the tool checks the migrations first: several runs outlast jest's 30 s on a loaded machine.
jest.setTimeout(120_000);

const world = useTestApp({}, { agencies: 1 });
const PAGE = { Host: 'console.example', Origin: 'http://console.example', 'X-Console-Request': '1' };
const admin = (...args: string[]) =>
  runAdminTool(world.databaseUrl, [...peopleCommands, ...credentialCommands], args, { PUBLIC_ORIGIN: 'https://console.example' });

test('When an operator invites a director and a reviewer, then each gets a single-use enrolment link that the console accepts', async () => {
  const director = await admin('director', 'invite', '--company', 'imobiliaria-cli', '--name', 'Célia Diretora', '--json');
  expect(director.code).toBe(0);
  const invited = JSON.parse(director.printed);
  expect(invited).toMatchObject({
    person: { kind: 'director', companyId: 'imobiliaria-cli', scopes: ['ops:credentials:manage', 'ops:agency:read', 'ops:agency:webhooks'] },
  });
  expect(invited.link).toMatch(/^https:\/\/console\.example\/console\/#\/enrol\/sbx_inv_[A-Za-z0-9_-]{43}$/);
  const invitation = invited.link.split('/').pop();
  const started = await request(world.app).post('/console/api/v1/enrolment/options').set(PAGE).send({ invitation });
  expect(started.status).toBe(200);
  expect(started.body).toMatchObject({
    person: { name: 'Célia Diretora', kind: 'director' },
    options: { rp: { id: 'console.example' }, user: { name: 'Célia Diretora' } },
  });

  const staff = await admin('staff', 'invite', '--name', 'Rui Revisor', '--scopes', 'ops:guarantees:review');
  expect(staff.code).toBe(0);
  expect(staff.printed).toContain('https://console.example/console/#/enrol/sbx_inv_');
  const wrong = await admin('staff', 'invite', '--name', 'Rui Revisor', '--scopes', 'ops:credentials:manage');
  expect(wrong.code).toBe(2);

  const list = JSON.parse((await admin('people', 'list', '--json')).printed);
  const person = list.items.find((item: { name: string }) => item.name === 'Célia Diretora');
  expect(person).toMatchObject({ passkeys: 0, sessions: 0 });
  const again = JSON.parse((await admin('people', 'reinvite', '--id', person.id, '--json')).printed);
  expect(again.link).not.toBe(invited.link);
  const spent = await request(world.app).post('/console/api/v1/enrolment/options').set(PAGE).send({ invitation });
  expect(spent.body.code).toBe('invitation_invalid');
});

test('When an operator lists credentials, then each secret shows when it last obtained a token, from where, and how many in 24 hours', async () => {
  const { clientId, clientSecret } = world.agency;
  expect(
    (await request(world.app).post(TOKEN_PATH).auth(clientId, clientSecret).type('form').send({ grant_type: 'client_credentials' })).status,
  ).toBe(200);
  const listed = await admin('credentials', 'list', '--company', world.agency.companyId);
  expect(listed.code).toBe(0);
  expect(listed.printed).toMatch(/last token \d{4}-\d\d-\d\dT[^ ]+ from 127\.0\.0\.1, 2 in 24 h/);
});
