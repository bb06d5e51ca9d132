/** GET {base_url}/openapi.json and /openapi.yaml: the partner contract as this deployment publishes it. */
import fs from 'node:fs';
import path from 'node:path';
import type { Response } from 'supertest';
import YAML from 'yaml';
import { ANONYMOUS, API, asPartner, withAuthorization } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const contract = YAML.parse(fs.readFileSync(path.join(__dirname, '../../openapi/partner.yaml'), 'utf8')) as {
  info: { version: string };
  paths: Record<string, unknown>;
  components: { securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
};

/** supertest buffers only text and JSON by itself. */
const asText = (res: Response, done: (error: Error | null, body: string) => void) => {
  const stream = res as unknown as NodeJS.ReadableStream;
  let text = '';
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => (text += chunk));
  stream.on('end', () => done(null, text));
};

const world = useTestApp();
const anyone = asPartner(world, ANONYMOUS);

describe('When anyone reads the published contract', () => {
  test('then openapi.json needs no token and is the partner document with servers and token URL set to this deployment', async () => {
    const response = await anyone.openApiJson().set('Host', 'partner.test:8443');
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    expect(response.headers['x-correlation-id']).toEqual(expect.any(String));
    expect(response.body.info.version).toBe(contract.info.version);
    expect(Object.keys(response.body.paths)).toEqual(Object.keys(contract.paths));
    expect(response.body.servers).toEqual([{ url: `http://partner.test:8443${API}`, description: expect.any(String) }]);
    expect(response.body.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe('http://partner.test:8443/auth/oauth2/token');
  });

  test('then openapi.yaml is the same document in YAML', async () => {
    const json = await anyone.openApiJson().set('Host', 'partner.test');
    const response = await anyone.openApiYaml().set('Host', 'partner.test').buffer(true).parse(asText);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/yaml/);
    expect(YAML.parse(response.body as string)).toEqual(json.body);
  });

  test('then an invalid token is ignored: the document is public', async () => {
    const response = await asPartner(world, withAuthorization('Bearer sbx_at_not_a_token')).openApiJson();
    expect(response.status).toBe(200);
  });
});
