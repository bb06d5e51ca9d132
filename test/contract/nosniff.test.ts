/**
 * Issue 34 item 7: every answer carries `X-Content-Type-Options: nosniff`, so that no browser ever
 * reads one as another type than it says. Every operation of the four documents is called (found
 * by walking them), without a token and, where one is needed, with one, so that successes, errors
 * of every kind (401, 403, 404, 400) and the public pages are all seen; then the answers no
 * operation gives (an unknown path, a method the path has not, the token endpoint's errors). The
 * raw answers of the listener (malformed HTTP, Expect) are checked in test/runtime/protocol-errors.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import { newStaff, OPS, type Operator } from '../back-office/ops-support';
import { API, TOKEN_PATH } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

type Json = Record<string, unknown>;
const BASES: Record<string, string> = { partner: API, 'back-office': OPS, health: '/health' };

const operations = Object.entries(BASES).flatMap(([name, base]) => {
  const document = YAML.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'openapi', `${name}.yaml`), 'utf8')) as {
    paths: Record<string, Json>;
  };
  return Object.entries(document.paths).flatMap(([template, item]) =>
    ['get', 'post', 'patch', 'delete']
      .filter((method) => item[method])
      .map((method) => ({
        name: `${name} ${(item[method] as Json)['operationId']}`,
        method: method as 'get' | 'post' | 'patch' | 'delete',
        // Any value for the path parameters: a resource that does not exist is an answer too.
        url: `${base}${template.replace(/\{[^}]+\}/g, '1')}`,
        secured: ((item[method] as Json)['security'] as unknown[] | undefined)?.length !== 0,
      })),
  );
});

const world = useTestApp({}, { agencies: 1 });
let staff: Operator;
beforeAll(async () => {
  staff = await newStaff(world);
});

const nosniff = (response: request.Response) => response.headers['x-content-type-options'];

test.each(operations.map((operation) => [operation.name, operation] as const))(
  'When %s is called with and without a token, then both answers carry nosniff',
  async (_name, operation) => {
    const anonymous = await request(world.app)[operation.method](operation.url);
    expect({ status: anonymous.status, header: nosniff(anonymous) }).toEqual({ status: anonymous.status, header: 'nosniff' });
    if (!operation.secured) return;
    const auth = operation.url.startsWith(OPS) ? staff.auth : world.agency.auth;
    const authorised = await request(world.app)[operation.method](operation.url).set(auth).set('Idempotency-Key', 'nosniff-walk').send({});
    expect({ status: authorised.status, header: nosniff(authorised) }).toEqual({ status: authorised.status, header: 'nosniff' });
  },
);

test('When an answer comes from no operation (an unknown path, a method a path has not, the token endpoint), then it carries nosniff too', async () => {
  const answers = [
    await request(world.app).get(`${API}/v1/no-such-path`),
    await request(world.app).put(`${API}/v1/rental-insurances`).send({}),
    await request(world.app).get('/elsewhere'),
    await request(world.app).post(TOKEN_PATH).type('form').send({ grant_type: 'client_credentials' }),
    await request(world.app).get(TOKEN_PATH),
    await request(world.app).post(`${API}/v1/rental-insurances`).set(world.agency.auth).set('Content-Type', 'application/json').send('{"broken'),
  ];
  expect(answers.map((answer) => [answer.status, nosniff(answer)])).toEqual(answers.map((answer) => [answer.status, 'nosniff']));
  expect(answers.map((answer) => answer.status)).toEqual([404, 405, 404, 401, 405, 400]);
});
