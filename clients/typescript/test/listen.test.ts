/**
 * `rental-guarantee listen` against the real service: started, it forwards the events that come
 * after its first start (not the older ones) to a local receiver, signed with the secret it prints
 * so verifyWebhook accepts them unchanged, and shows the receiver's answers; stopped and started
 * again, it forwards what happened meanwhile and repeats nothing.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { isRentalInsuranceStatusChanged, verifyWebhook, type WebhookEvent } from '../src/index.js';
import { newGuarantee, startHarness, type Harness } from './harness.js';
import { freePort } from '../../../scripts/support/sandbox-service.mjs';
import { startReceiver, type TestReceiver } from './receiver.js';

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/cli/main.ts');

let h: Harness;
let receiver: TestReceiver;
let dir: string;
before(async () => {
  h = await startHarness('client-listen');
  receiver = await startReceiver(() => 202);
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'listen-test-'));
});
after(async () => {
  await receiver?.close();
  await h?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

interface Run {
  child: ChildProcess;
  output: () => string;
  waitFor(pattern: RegExp, ms?: number): Promise<RegExpExecArray>;
  stop(): Promise<number | null>;
}

function startListen(forwardTo = receiver.url, stateFile = 'listen.json'): Run {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', CLI, 'listen', '--forward-to', forwardTo, '--state-file', path.join(dir, stateFile), '--poll-interval', '0.2'],
    {
      env: {
        ...process.env,
        RG_BASE_URL: h.service.baseUrl,
        RG_AUTH_URL: h.service.authUrl,
        RG_CLIENT_ID: h.service.clientId,
        RG_CLIENT_SECRET: h.service.clientSecret,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    async waitFor(pattern, ms = 30_000) {
      const deadline = Date.now() + ms;
      for (;;) {
        const match = pattern.exec(output);
        if (match) return match;
        if (Date.now() > deadline || child.exitCode !== null) assert.fail(`listen did not print ${pattern} within ${ms} ms:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Waits until the feed lists an event of this guarantee (an event shows there once older transactions end). */
async function inFeed(guaranteeId: number): Promise<void> {
  const client = h.client();
  for (let tries = 0; tries < 100; tries += 1) {
    const { data } = await client.api.GET('/v1/events', { params: { query: { limit: 200 } } });
    const events = (data?._embedded.events ?? []) as WebhookEvent[];
    if (events.some((event) => isRentalInsuranceStatusChanged(event) && event.data.rentalInsurance.id === guaranteeId)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`the event of guarantee ${guaranteeId} never appeared in the feed`);
}

const received = () => receiver.received.map((request) => ({ request, event: JSON.parse(request.rawBody.toString('utf8')) as WebhookEvent }));
const guaranteeOf = (event: WebhookEvent) => (isRentalInsuranceStatusChanged(event) ? event.data.rentalInsurance.id : undefined);

test('listen forwards the events after its first start, verifiably signed, and resumes after a restart without repeating one', async () => {
  const client = h.client();
  const before = (await client.rentalInsurances.create(newGuarantee())).data.id;
  await inFeed(before);

  const first = startListen();
  const secret = (await first.waitFor(/Signing secret \(local, kept in [^)]+\): (whsec_\S+)/))[1]!;
  await first.waitFor(/Forwarding the events from now on/);
  assert.ok(!first.output().includes(h.service.clientSecret), 'the client secret is never printed');

  const one = (await client.rentalInsurances.create(newGuarantee())).data.id;
  await receiver.waitFor(() => received().some(({ event }) => guaranteeOf(event) === one));
  await first.waitFor(/rental_insurance\.status_changed\s+\S+\s+-> 202 \(\d+ ms\)/);
  assert.equal(await first.stop(), 0);

  const two = (await client.rentalInsurances.create(newGuarantee())).data.id; // while listen is stopped
  const second = startListen();
  assert.equal((await second.waitFor(/Signing secret \(local, kept in [^)]+\): (whsec_\S+)/))[1], secret, 'the same local secret after a restart');
  await second.waitFor(/Forwarding the events after the last one forwarded/);
  await receiver.waitFor(() => received().some(({ event }) => guaranteeOf(event) === two));
  await new Promise((resolve) => setTimeout(resolve, 1000)); // time for a repeat to show, if there were one
  assert.equal(await second.stop(), 0);

  const all = received();
  assert.deepEqual(
    all.map(({ event }) => guaranteeOf(event)),
    [one, two],
    'the event before the first start is not forwarded; each later one exactly once',
  );
  for (const { request, event } of all) {
    const verified = verifyWebhook(request.rawBody, request.headers, secret);
    assert.deepEqual(verified, event);
    assert.equal(request.headers['webhook-id'], event.id);
  }
});

test('while the handler does not answer, listen keeps trying the same event, and forwards it once when the handler is up', async () => {
  const port = await freePort();
  const run = startListen(`http://127.0.0.1:${port}/webhooks`, 'down.json');
  await run.waitFor(/Forwarding the events from now on/);
  const id = (await h.client().rentalInsurances.create(newGuarantee())).data.id;
  await run.waitFor(/status_changed\s+\S+\s+-> no answer \(ECONNREFUSED\)/);
  const late = await startReceiver(() => 200, port);
  try {
    await late.waitFor((all) => all.length > 0);
    await run.waitFor(/-> 200 \(\d+ ms\)/);
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.deepEqual(
      late.received.map((request) => guaranteeOf(JSON.parse(request.rawBody.toString('utf8')) as WebhookEvent)),
      [id],
    );
  } finally {
    assert.equal(await run.stop(), 0);
    await late.close();
  }
});
