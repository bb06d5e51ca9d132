#!/usr/bin/env node
/**
 * rental-guarantee: the client package's command line. One command today:
 *
 *   rental-guarantee listen --forward-to http://localhost:3000/webhooks
 *
 * follows the agency's event feed and forwards each event to a local handler, signed with a local
 * secret it prints (see listen.ts). The credential comes from RG_BASE_URL, RG_AUTH_URL,
 * RG_CLIENT_ID and RG_CLIENT_SECRET (or the options); the client secret and tokens are never printed.
 */
import { parseArgs } from 'node:util';
import { createPartnerClient } from '../client.js';
import { PartnerApiError } from '../errors.js';
import type { components } from '../generated/partner-api.js';
import { listen } from './listen.js';
import { ListenState } from './listen-state.js';

const USAGE = `Usage: rental-guarantee listen --forward-to <url> [options]

Forwards the agency's events (GET /v1/events) to your local webhook handler, signed (Standard
Webhooks) with a local secret it prints, and shows each answer. Stop it with Ctrl+C; the next run
resumes after the last event forwarded. The first run starts from the end of the feed.

  --forward-to     where to POST each event, e.g. http://localhost:3000/webhooks
  --base-url       API base address (default: RG_BASE_URL)
  --auth-url       OAuth base address (default: RG_AUTH_URL)
  --client-id      client ID with ri:events:read and the read scopes of the events to forward
                   (ri:rental-insurances:read, ri:financial:read) (default: RG_CLIENT_ID); its secret in RG_CLIENT_SECRET
  --types          only these event types, comma-separated (default: all)
  --from-start     on the first run, forward every event the feed keeps (30 days) instead
  --state-file     where the local secret and the cursor are kept (default: .rental-guarantee/listen.json)
  --poll-interval  seconds between polls of an empty feed (default 2)
  --timeout        seconds to wait for your handler's answer (default 10, as the service)
`;

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'forward-to': { type: 'string' },
      'base-url': { type: 'string', default: process.env['RG_BASE_URL'] },
      'auth-url': { type: 'string', default: process.env['RG_AUTH_URL'] },
      'client-id': { type: 'string', default: process.env['RG_CLIENT_ID'] },
      types: { type: 'string' },
      'from-start': { type: 'boolean', default: false },
      'state-file': { type: 'string', default: '.rental-guarantee/listen.json' },
      'poll-interval': { type: 'string', default: '2' },
      timeout: { type: 'string', default: '10' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  const clientSecret = process.env['RG_CLIENT_SECRET'];
  const missing = [
    positionals[0] === 'listen' && positionals.length === 1 ? [] : ['the command `listen`'],
    values['forward-to'] ? [] : ['--forward-to'],
    baseUrl ? [] : ['--base-url (or RG_BASE_URL)'],
    values['auth-url'] ? [] : ['--auth-url (or RG_AUTH_URL)'],
    values['client-id'] ? [] : ['--client-id (or RG_CLIENT_ID)'],
    clientSecret ? [] : ['RG_CLIENT_SECRET'],
  ].flat();
  const types = values.types?.split(',').map((type) => type.trim());
  const pollSeconds = Number(values['poll-interval']);
  const timeoutSeconds = Number(values.timeout);
  if (missing.length > 0 || !(pollSeconds > 0) || !(timeoutSeconds > 0)) {
    console.error(`${missing.length ? `missing ${missing.join(', ')}` : '--poll-interval and --timeout are seconds above 0'}\n\n${USAGE}`);
    return 2;
  }
  const clientId = values['client-id']!;
  const forwardTo = new URL(values['forward-to']!).toString();
  const state = ListenState.open(values['state-file']!);
  // No scope asked: the token holds every permission of the credential, since the feed lists only the
  // events whose resource the token may also read (ri:rental-insurances:read, ri:financial:read).
  const client = createPartnerClient({ baseUrl: baseUrl!, authUrl: values['auth-url']!, clientId, clientSecret: clientSecret! });
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  const print = (line: string) => console.log(line);
  print(`Forwarding the events of ${baseUrl} (client ${clientId}) to ${forwardTo}`);
  print(`Signing secret (local, kept in ${values['state-file']}): ${state.secret}`);
  print('Give your handler this secret, e.g. RG_WEBHOOK_SECRETS=<it>. Ctrl+C stops; the next run resumes.');
  await listen({
    client,
    feed: `${baseUrl} ${clientId}`,
    forwardTo,
    state,
    ...(types ? { types: types as components['schemas']['WebhookEventType'][] } : {}),
    fromStart: values['from-start']!,
    pollIntervalMs: pollSeconds * 1000,
    timeoutMs: timeoutSeconds * 1000,
    print,
    signal: stop.signal,
  });
  print('Stopped.');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    // Typed errors carry no secret or token; say what failed and stop.
    const details = error instanceof PartnerApiError && error.details.length > 0 ? ` (${error.details.join('; ')})` : '';
    console.error(`rental-guarantee: ${error instanceof Error ? error.message : String(error)}${details}`);
    process.exit(1);
  },
);
