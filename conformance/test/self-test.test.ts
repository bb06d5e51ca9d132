/**
 * The conformance kit's self-test (make conformance-selftest): the built command, run as a partner
 * runs it, must pass against our sandbox, and must fail, naming the one step concerned, when a
 * proxy in front of the sandbox makes a single answer out of contract (a body field removed, a
 * required header removed, an undeclared status). The secret and tokens never appear in its output.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSandboxService, type SandboxService } from '../../scripts/support/sandbox-service.mjs';
import { startCorruptingProxy, type Corruption } from './corrupting-proxy.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(root, 'conformance/dist/cli.js');
const OUT = path.join(root, '.data/conformance');
let service: SandboxService;

before(async () => {
  fs.mkdirSync(OUT, { recursive: true });
  // The sandbox reviewer and signers act within about a second, so that a journey takes seconds.
  service = await startSandboxService({
    name: 'conformance',
    env: { SCHEDULER_INTERVAL_MS: '500', SANDBOX_REVIEW_DELAY_SECONDS: '1', SANDBOX_SIGNING_DELAY_SECONDS: '1' },
  });
});
after(() => service?.stop());

interface Run {
  code: number | null;
  output: string;
  junit: string;
}

/** The kit against `origin` (the sandbox or a proxy in front of it), secret in RG_CLIENT_SECRET. */
function kit(origin: string, name: string, extra: string[] = []): Promise<Run> {
  const junit = path.join(OUT, `${name}.xml`);
  fs.rmSync(junit, { force: true });
  const args = [
    CLI,
    '--base-url',
    `${origin}/rental-guarantee`,
    '--auth-url',
    `${origin}/auth`,
    '--client-id',
    service.clientId,
    '--junit',
    junit,
    '--poll-interval',
    '0.5',
    '--sandbox-timeout',
    '60',
    ...extra,
  ];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, RG_CLIENT_SECRET: service.clientSecret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => resolve({ code, output, junit: fs.existsSync(junit) ? fs.readFileSync(junit, 'utf8') : '' }));
  });
}

function assertNoSecrets(run: Run): void {
  for (const text of [run.output, run.junit]) {
    assert.ok(!text.includes(service.clientSecret), 'the client secret was printed');
    assert.ok(!/(sbx|prd)_at_(?!\[redacted\])[A-Za-z0-9_-]{8,}/.test(text), 'an access token was printed');
  }
}

const failedSteps = (run: Run) => [...run.output.matchAll(/^ {2}FAIL \d+ (.+?) {2,}/gm)].map((match) => match[1]!.trim());

test('the kit passes against our sandbox, validating against the document the deployment publishes', async () => {
  const run = await kit(service.origin, 'sandbox');
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /CONFORMANT: every step passed/);
  assert.match(run.junit, /<testsuites name="partner-conformance" tests="21" failures="0" errors="0" skipped="0"/);
  assertNoSecrets(run);
});

const cases: Array<{ label: string; step: string; problem: RegExp; corruption: Corruption }> = [
  {
    label: 'a body field removed',
    step: 'read the guarantee (and poll it with If-None-Match)',
    problem: /GET \/v1\/rental-insurances\/\d+ -> 200: out of contract: body must have required property 'coTenants'/,
    corruption: {
      method: 'GET',
      path: /^\/rental-guarantee\/v1\/rental-insurances\/\d+$/,
      change: (answer) => delete (answer.body as Record<string, unknown>)['coTenants'],
    },
  },
  {
    label: 'a required header removed',
    step: 'comment on the guarantee',
    problem: /POST \/v1\/rental-insurances\/\d+\/comments -> 201: out of contract: header Idempotent-Replay is required and missing/,
    corruption: { method: 'POST', path: /\/comments$/, change: (answer) => delete answer.headers['idempotent-replay'] },
  },
  {
    label: "a document's digest removed",
    step: 'attach, list and download a document (SHA-256 checked)',
    problem: /POST \/v1\/rental-insurances\/\d+\/documents -> 201: out of contract: body\.documents\.0 must have required property 'sha256'/,
    corruption: {
      method: 'POST',
      path: /\/documents$/,
      change: (answer) => delete (answer.body as { documents: Array<Record<string, unknown>> }).documents[0]!['sha256'],
    },
  },
  {
    label: 'an undeclared status',
    step: 'read daily summaries (and a reversed range)',
    problem: /status 202 is not declared for listDailySummaries/,
    corruption: { method: 'GET', path: /\/v1\/financial\/daily-summaries$/, change: (answer) => (answer.status = 202) },
  },
];

for (const { label, step, problem, corruption } of cases) {
  test(`the kit fails and names the step when one answer is out of contract: ${label}`, async () => {
    const proxy = await startCorruptingProxy(service.origin, corruption);
    try {
      const run = await kit(proxy.origin, label.replace(/\W+/g, '-'), ['--contract', path.join(root, 'openapi/partner.yaml')]);
      assert.ok(proxy.corrupted(), 'the proxy corrupted no answer');
      assert.equal(run.code, 1, run.output);
      assert.deepEqual(failedSteps(run), [step], run.output);
      assert.match(run.output, problem);
      assert.match(run.output, new RegExp(`FAILED steps: "${step.replace(/[()]/g, '\\$&')}"`));
      assert.match(
        run.junit,
        new RegExp(`<testcase classname="partner-conformance" name="\\d+ ${step.replace(/[()]/g, '\\$&')}" time="[\\d.]+">\\n {6}<failure `),
      );
      assertNoSecrets(run);
    } finally {
      await proxy.close();
    }
  });
}

test('the kit refuses a production client ID before sending anything, explains its usage, and --help answers 0', async () => {
  const refused = await kit('http://127.0.0.1:9', 'production', ['--client-id', 'prd_ci_someone']);
  assert.equal(refused.code, 2);
  assert.match(refused.output, /production client ID/);
  const child = spawn(process.execPath, [CLI], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 2);
  assert.match(output, /missing --base-url, --auth-url, --client-id/);
  const help = spawn(process.execPath, [CLI, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let usage = '';
  help.stdout.on('data', (chunk) => (usage += chunk));
  assert.equal(await new Promise((resolve) => help.on('close', resolve)), 0);
  assert.match(usage, /^Usage: partner-conformance --base-url/);
});
