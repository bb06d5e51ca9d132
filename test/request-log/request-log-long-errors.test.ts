/**
 * Whatever a partner sends, its errors and its request log stay within the contract's bounds
 * (issue 34, finding 1): a body of sixty unknown fields with names of hundreds or thousands of characters, of
 * control characters or of emoji, is answered 400 with each name cut to 64 characters and at most
 * 50 details of at most 300; its request log line keeps the first 5 details in printable ASCII,
 * at most 200 characters each; an agency's stored log grows by about 2 KB for such a request, not
 * by the 24 KB it took before.
 */
import request from 'supertest';
import { LINE_BOUNDS } from '../../src/http/request-log-line';
import { ERROR_BOUNDS } from '../../src/http/error-response';
import { FIELD_NAME_CHARS } from '../../src/validation/bounded-text';
import { guaranteeBody } from '../support/factories';
import { API, asPartner, withQuery } from '../support/partner-api';
import { useTestApp } from '../support/test-app';

const world = useTestApp({ SCHEDULER_INTERVAL_MS: '0' }, { agencies: 1 });
const partner = asPartner(world);

const chars = (text: string) => Array.from(text).length;

describe('When a partner sends sixty unknown fields with names of hundreds or thousands of characters', () => {
  const names = [
    ...Array.from({ length: 20 }, (_, i) => `${i}${'x'.repeat(1500)}`),
    ...Array.from({ length: 20 }, (_, i) => `${i}${'\u0001'.repeat(250)}`),
    ...Array.from({ length: 20 }, (_, i) => `${i}${'😀'.repeat(250)}`),
  ];
  let answer: request.Response;

  beforeAll(async () => {
    const body: Record<string, unknown> = guaranteeBody();
    for (const name of names) body[name] = 1;
    answer = await partner.create(body).set('X-Correlation-Id', 'rl-long-names');
  });

  it('then the 400 quotes each name cut to 64 characters, in at most 50 details of at most 300', () => {
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe('validation_failed');
    const details = answer.body.details as string[];
    expect(details).toHaveLength(ERROR_BOUNDS.details);
    for (const detail of details) {
      expect(chars(detail)).toBeLessThanOrEqual(ERROR_BOUNDS.detailChars);
      expect(detail).toMatch(/…: unknown field$/);
      expect(chars(detail.slice(0, detail.indexOf(': unknown field')))).toBe(FIELD_NAME_CHARS);
    }
    expect(details.some((detail) => detail.includes('😀'))).toBe(true);
    // A bounded answer, not the 90 KB of names sent.
    expect(Buffer.byteLength(answer.text)).toBeLessThan(50 * 300 * 6);
  });

  it('then its request log line keeps 5 details of at most 200 printable ASCII characters, and about 2 KB is stored', async () => {
    await world.flushRequestLog();
    const log = await request(world.app)
      .get(withQuery(`${API}/v1/request-log`, { correlationId: 'rl-long-names' }))
      .set(world.agency.auth);
    expect(log.status).toBe(200);
    const [line] = log.body._embedded.requestLog;
    expect(line.status).toBe(400);
    expect(line.error.code).toBe('validation_failed');
    expect(line.error.details).toHaveLength(LINE_BOUNDS.details);
    for (const detail of line.error.details as string[]) {
      expect(detail.length).toBeLessThanOrEqual(LINE_BOUNDS.detailChars);
      expect(detail).toMatch(/^[ -~]*$/);
    }
    const stored = await world.db.requestLogLine.findFirstOrThrow({ where: { correlationId: 'rl-long-names' } });
    expect(stored.sizeBytes).toBeLessThan(2048);
  });
});
