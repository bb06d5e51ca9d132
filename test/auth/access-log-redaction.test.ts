/**
 * The access log (the process's log line per request, src/http/access-log.ts) never holds a secret
 * or a token that a client put in the query string (of the token endpoint or of the API), and still
 * says which request it was. The app logs at `info` into a stream that the test reads. Assertions
 * compare booleans, so a failure prints no secret.
 */
import { Writable } from 'node:stream';
import request from 'supertest';
import { useTestApp } from '../support/test-app';
import type { InProcessApp } from '../support/in-process-app';
import { TOKEN_PATH } from '../support/partner-api';
import { newCredential } from './token-harness';

const lines: string[] = [];
const capture = new Writable({
  write(chunk: Buffer, _encoding, done) {
    lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
    done();
  },
});

const t = useTestApp();
let logged: InProcessApp;
beforeAll(async () => {
  logged = await t.anotherApp({}, { logTo: capture });
});

/** The url of each request-completed line of the log. */
const loggedUrls = () =>
  lines
    .map((line) => JSON.parse(line) as { req?: { url?: string } })
    .map((entry) => entry.req?.url)
    .filter((url): url is string => typeof url === 'string');

describe('When a client puts credentials or tokens in the query string', () => {
  test('then neither the secret nor the token reaches the access log, and the request is still recognisable', async () => {
    const credential = await newCredential(t.db);
    const secret = credential.clientSecret;
    const tokenAnswer = await request(logged.app)
      .post(`${TOKEN_PATH}?client_id=${credential.clientId}&client_secret=${secret}&grant_type=client_credentials`)
      .auth(credential.clientId, secret)
      .type('form')
      .send({ grant_type: 'client_credentials' });
    expect(tokenAnswer.status).toBe(200);
    const token = tokenAnswer.body.access_token as string;

    const apiAnswer = await request(logged.app).get(`/rental-guarantee/v1/rental-insurances?access_token=${token}&pageSize=5`);
    expect(apiAnswer.status).toBe(401); // a token in the query string is not accepted (RFC 6750 §2.3 is not offered)
    // Encoded names and other credential-like names are redacted too.
    await request(logged.app).get(`/rental-guarantee/v1/rental-insurances?client%5Fsecret=${secret}&Token=${token}&refresh_token=${token}`);
    await request(logged.app).post(`${TOKEN_PATH}?password=${secret}&api_key=${secret}`).type('form').send({});

    const log = lines.join('\n');
    expect(log.includes(secret)).toBe(false);
    expect(log.includes(token)).toBe(false);
    expect(log.includes(secret.slice(7))).toBe(false); // not even without its prefix

    const urls = loggedUrls();
    expect(urls).toContain(`${TOKEN_PATH}?client_id=${credential.clientId}&client_secret=[redacted]&grant_type=client_credentials`);
    expect(urls).toContain('/rental-guarantee/v1/rental-insurances?access_token=[redacted]&pageSize=5');
    expect(urls).toContain('/rental-guarantee/v1/rental-insurances?client%5Fsecret=[redacted]&Token=[redacted]&refresh_token=[redacted]');
    expect(urls).toContain(`${TOKEN_PATH}?password=[redacted]&api_key=[redacted]`);
  });

  test('then keys, signatures, JWTs, passwords and HMACs are redacted however their names are spelt', async () => {
    const secret = 'sbx_cs_loggedvalue_7f3a9c21';
    const names = [
      'private_key',
      'PRIVATE-KEY',
      'privateKey',
      'sig',
      'Sig',
      'webhook_sig',
      'X-Amz-Signature',
      'jwt',
      'id_jwt',
      'pass',
      'db.pass',
      'dbPass',
      'passcode',
      'hmac',
      'hmac_sha256',
      'otp',
      'pin',
      'key',
      'sas-key',
      'apiKey',
      'cookie',
      'authorization',
      'sessionid',
      'client%5Fsecret',
    ];
    const query = names.map((name) => `${name}=${secret}`).join('&');
    await request(logged.app).get(`/rental-guarantee/v1/rental-insurances?${query}&pageSize=5`);
    expect(lines.join('\n').includes(secret)).toBe(false);
    expect(loggedUrls()).toContain(`/rental-guarantee/v1/rental-insurances?${names.map((name) => `${name}=[redacted]`).join('&')}&pageSize=5`);
  });

  test('then ordinary query parameters are logged as sent', async () => {
    await request(logged.app).get('/rental-guarantee/v1/rental-insurances?status=approved&page=2&tenantName=jos%C3%A9');
    expect(loggedUrls()).toContain('/rental-guarantee/v1/rental-insurances?status=approved&page=2&tenantName=jos%C3%A9');
    // Words that merely contain a sensitive word are not redacted.
    const ordinary = '/back-office/v1/audit-log?credentialId=3f2a9c1e&action=credential.created&design=a&passenger=b&monkey=c&keyword=d';
    await request(logged.app).get(ordinary);
    expect(loggedUrls()).toContain(ordinary);
  });
});

describe('When a secret is sent under a name that says nothing, at the most verbose log level (issue 34)', () => {
  test('then values shaped like a webhook secret, a client secret, an access token, a bearer credential or a JWT are redacted, in the query and in the path', async () => {
    const verbose: string[] = [];
    const traceLog = new Writable({
      write(chunk: Buffer, _encoding, done) {
        verbose.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const traced = await t.anotherApp({ LOG_LEVEL: 'trace' }, { logTo: traceLog });
    const secrets = [
      'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      'sbx_cs_c2VjcmV0LXZhbHVlLTEyMzQ1Njc4OTA',
      'prd_at_dG9rZW4tdmFsdWUtMTIzNDU2Nzg5MA',
      'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
    ];
    const query = secrets.map((secret, index) => `note${index}=${encodeURIComponent(secret)}`).join('&');
    await request(traced.app).get(`/rental-guarantee/v1/rental-insurances?${query}&q=${encodeURIComponent('Bearer abc.def')}&pageSize=5`);
    await request(traced.app).get(`/rental-guarantee/v1/webhook-endpoints/${secrets[0]}/deliveries?memo=whsec%5Fencoded`);
    const log = verbose.join('\n');
    expect(verbose.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log.includes(secret.slice(7))).toBe(false);
    expect(log.includes('whsec_encoded') || log.includes('whsec%5Fencoded')).toBe(false);
    const urls = verbose.map((line) => (JSON.parse(line) as { req?: { url?: string } }).req?.url).filter(Boolean);
    expect(urls).toContain(
      `/rental-guarantee/v1/rental-insurances?note0=[redacted]&note1=[redacted]&note2=[redacted]&note3=[redacted]&q=[redacted]&pageSize=5`,
    );
    expect(urls).toContain('/rental-guarantee/v1/webhook-endpoints/[redacted]/deliveries?memo=[redacted]');
  });
});

describe('When a request is answered', () => {
  test('then the log holds one line for it, with its correlation id, method, URL, status and response time', async () => {
    const answer = await request(logged.app).get('/rental-guarantee/v1/rental-insurances/42').set('X-Correlation-Id', 'log-line-check-1');
    expect(answer.status).toBe(401);
    const entries = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((entry) => entry['correlationId'] === 'log-line-check-1' && entry['msg'] === 'request completed');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      level: 30,
      service: 'rental-guarantee-api',
      req: { method: 'GET', url: '/rental-guarantee/v1/rental-insurances/42' },
      res: { statusCode: 401 },
      responseTime: expect.any(Number),
    });
  });
});
