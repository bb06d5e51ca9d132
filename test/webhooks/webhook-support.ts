/**
 * Webhook tests' helpers: a receiver on 127.0.0.1 that records every request (raw body and
 * headers) and answers what the test scripts, the partner's client of the endpoints API and the
 * event feed, and a validator of event payloads against the document's `webhooks` schemas.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { loadContract } from '../../src/contract/load-contract';
import type { Database } from '../../src/database/prisma-client';
import { Prisma } from '../../src/generated/prisma/client';
import { newKey } from '../support/factories';
import { API, withQuery, type AppTarget, type Caller, type Query } from '../support/partner-api';
import { eventually, waitFor } from '../support/wait-for';

export const ENDPOINTS = `${API}/v1/webhook-endpoints`;
export const EVENTS = `${API}/v1/events`;
export const ALL_TYPES = [
  'rental_insurance.status_changed',
  'rental_insurance.signature_changed',
  'rental_insurance.comment_added',
  'rental_insurance.contract_reissued',
  'statement_entry.created',
];

export interface Received {
  headers: Record<string, string>;
  body: string;
  event: { id: string; type: string; agencyId: string; data: Record<string, unknown>; occurredAt: string; cursor: string };
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Answers in order, then 200 (a status, or a status and headers, or headers made when it answers). */
  script: Array<number | { status: number; headers: Record<string, string> | (() => Record<string, string>) }>;
  close(): Promise<void>;
  /** Waits until `predicate` holds for the requests received (polling), or fails after `ms`. */
  waitFor(predicate: (received: Received[]) => boolean, ms?: number): Promise<Received[]>;
}

/** A receiver on 127.0.0.1, on `port` when given (a receiver that comes back where it was). */
export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = [];
  const script: Receiver['script'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({ headers: req.headers as Record<string, string>, body, event: JSON.parse(body) as Received['event'] });
      const answer = script.shift() ?? 200;
      const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer;
      res.writeHead(status, typeof headers === 'function' ? headers() : headers).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const bound = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${bound}/hooks`,
    received,
    script,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    waitFor: async (predicate, ms = 15_000) => {
      if (!(await eventually(() => predicate(received), { withinMs: ms }))) {
        throw new Error(`receiver: condition not met in ${ms} ms; got ${received.map((r) => r.event.type).join(', ')}`);
      }
      return received;
    },
  };
}

/** Verifies a received request with the standardwebhooks library (throws when invalid). */
export function verify(secret: string, received: Received): unknown {
  return new Webhook(secret).verify(received.body, received.headers);
}

const SCHEMA_OF_TYPE: Record<string, string> = {
  'rental_insurance.status_changed': 'RentalInsuranceStatusChangedEvent',
  'rental_insurance.signature_changed': 'RentalInsuranceSignatureChangedEvent',
  'rental_insurance.comment_added': 'RentalInsuranceCommentAddedEvent',
  'rental_insurance.contract_reissued': 'RentalInsuranceContractReissuedEvent',
  'rental_insurance.documents_attached': 'RentalInsuranceDocumentsAttachedEvent',
  'statement_entry.created': 'StatementEntryCreatedEvent',
  'webhook.test': 'WebhookTestEvent',
};

let ajv: Ajv2020 | undefined;

/** The validation errors of an event payload against the document's schema of its type (webhooks), or [] when valid. */
export function payloadProblems(event: { type: string }): string[] {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false });
    addFormats(ajv);
    ajv.addSchema(loadContract('partner') as object, 'partner.yaml');
  }
  const document = loadContract('partner') as unknown as {
    webhooks: Record<string, { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }>;
  };
  const name = SCHEMA_OF_TYPE[event.type];
  if (!name) return [`unknown type ${event.type}`];
  if (event.type !== 'webhook.test') {
    const declared = Object.values(document.webhooks).some((w) => w.post.requestBody.content['application/json']!.schema.$ref.endsWith(`/${name}`));
    if (!declared) return [`${event.type} is not declared in the document's webhooks`];
  }
  const validate = ajv.getSchema(`partner.yaml#/components/schemas/${name}`)!;
  return validate(event) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

/**
 * The feed shows an event once every transaction older than it has ended anywhere on the server
 * (src/events/event-feed.ts), and the test files running beside this one share that server: waits
 * until every transaction running now has ended (at most 20 s), so that all a test wrote is in it.
 */
export async function feedCaughtUp(db: Database): Promise<void> {
  const horizonOf = async (column: Prisma.Sql) => (await db.$queryRaw<Array<{ xid: bigint }>>`SELECT ${column}::text::bigint AS xid`)[0]!.xid;
  const horizon = await horizonOf(Prisma.sql`pg_snapshot_xmax(pg_current_snapshot())`);
  await waitFor(
    () => horizonOf(Prisma.sql`pg_snapshot_xmin(pg_current_snapshot())`),
    (xmin) => xmin >= horizon,
    { withinMs: 20_000 },
  );
}

/** The endpoints API and the feed, as one agency. */
export function webhookClient(target: AppTarget, who: Caller | (() => Caller)) {
  const auth = () => (typeof who === 'function' ? who() : who).auth;
  const write = (method: 'post' | 'patch' | 'delete', path: string, body?: unknown, key = newKey()) => {
    const call = request(target.app)[method](path).set(auth()).set('Idempotency-Key', key);
    return body === undefined
      ? call
      : call.set('Content-Type', method === 'patch' ? 'application/merge-patch+json' : 'application/json').send(JSON.stringify(body));
  };
  return {
    create: (body: unknown, key?: string) => write('post', ENDPOINTS, body, key),
    list: (query: Query = {}) => request(target.app).get(withQuery(ENDPOINTS, query)).set(auth()),
    get: (id: string) => request(target.app).get(`${ENDPOINTS}/${id}`).set(auth()),
    patch: (id: string, body: unknown, etag: string) => write('patch', `${ENDPOINTS}/${id}`, body).set('If-Match', etag),
    remove: (id: string) => write('delete', `${ENDPOINTS}/${id}`),
    rotate: (id: string, key?: string) => write('post', `${ENDPOINTS}/${id}/rotate-secret`, undefined, key),
    test: (id: string) => write('post', `${ENDPOINTS}/${id}/test`),
    deliveries: (id: string, query: Query = {}) =>
      request(target.app)
        .get(withQuery(`${ENDPOINTS}/${id}/deliveries`, query))
        .set(auth()),
    redeliver: (id: string, deliveryId: string) => write('post', `${ENDPOINTS}/${id}/deliveries/${deliveryId}/redeliver`),
    redeliverFailed: (id: string, body: unknown, key?: string) => write('post', `${ENDPOINTS}/${id}/redeliver-failed`, body, key),
    /** The feed, once every transaction running now on the shared server has ended (`feedCaughtUp`). */
    events: async (query: Query = {}) => {
      if (target.db) await feedCaughtUp(target.db);
      return request(target.app).get(withQuery(EVENTS, query)).set(auth());
    },
    /** Registers an endpoint for `url` (every type unless given) and returns its id and secret; throws unless 201. */
    register: async (url: string, eventTypes = ALL_TYPES): Promise<{ id: string; secret: string; etag: string }> => {
      const response = await write('post', ENDPOINTS, { url, eventTypes });
      if (response.status !== 201) throw new Error(`register: ${response.status} ${response.text}`);
      return { id: response.body.id as string, secret: response.body.secret as string, etag: response.headers['etag'] as string };
    },
  };
}
