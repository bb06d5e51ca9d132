#!/usr/bin/env node
/**
 * Third-party conformance: Stoplight Prism, in proxy mode with --errors, in front of the real
 * service, validates every request and response of a scripted partner journey against
 * openapi/partner.yaml. Any violation Prism reports (an error answer of its own, or an
 * `sl-violations` header) and any unexpected status fails the run (exit 1).
 *
 *   node scripts/contract/prism-journey.mjs                      the journey (make contract-journey)
 *   node scripts/contract/prism-journey.mjs --self-test          also proves that a response
 *       violation is caught: the same journey against a copy of the contract in which one response
 *       field is declared more narrowly than the service answers must FAIL
 *   node scripts/contract/prism-journey.mjs --contract <file>    validate against another copy
 *
 * The service runs from source (tsx src/main.ts) on its own embedded PostgreSQL in a temporary
 * directory, with the sandbox demo credential and the scheduler off (nothing changes a guarantee
 * behind the journey's back). The token comes from the service directly (the token endpoint is in
 * openapi/auth.yaml, not behind this proxy); everything else goes through Prism.
 * The journey's steps are in partner-journey.mjs, the servers in journey-servers.mjs.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { killAllSandboxServices, startSandboxService } from '../support/sandbox-service.mjs';
import { root, stopAll } from './journey-processes.mjs';
import { issueToken, startPrism } from './journey-servers.mjs';
import { journey } from './partner-journey.mjs';

const args = process.argv.slice(2);
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
/** The service on its own embedded database (the scheduler off), stopped however the run ends. */
let service;

async function cleanUp() {
  await stopAll();
  await service?.stop();
}

async function run(contract) {
  service = await startSandboxService({ name: 'prism-journey' });
  const token = await issueToken(service);
  const prism = await startPrism(contract, `${service.origin}/rental-guarantee`);
  console.log(`prism-journey: service and Prism ready after ${elapsed()}`);
  return journey(prism, token);
}

async function main() {
  const contractArg = args.includes('--contract') ? args[args.indexOf('--contract') + 1] : undefined;
  const contract = path.resolve(root, contractArg ?? 'openapi/partner.yaml');
  let status = 0;
  try {
    const { problems, log } = await run(contract);
    console.log(log.join('\n'));
    if (problems.length > 0) {
      console.error(
        `prism-journey: FAILED (${problems.length} problem(s)) against ${path.relative(root, contract)}:\n  - ${problems.join('\n  - ')}`,
      );
      status = 1;
    } else {
      console.log(`prism-journey: OK, ${log.length} requests through Prism without a violation (${elapsed()})`);
    }
  } catch (error) {
    console.error(`prism-journey: ERROR ${error instanceof Error ? error.message : error}`);
    status = 1;
  } finally {
    await cleanUp();
  }
  if (args.includes('--self-test') && status === 0) status = await selfTest();
  process.exit(status);
}

/** The journey must fail against a contract that declares a response field more narrowly than the service answers. */
async function selfTest() {
  const narrowed = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-journey-contract-'));
  const file = path.join(narrowed, 'partner.yaml');
  const doc = YAML.parse(fs.readFileSync(path.join(root, 'openapi/partner.yaml'), 'utf8'));
  doc.components.schemas.Tenant.properties.name.maxLength = 5; // the service answers longer names
  fs.writeFileSync(file, YAML.stringify(doc));
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--contract', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  fs.rmSync(narrowed, { recursive: true, force: true });
  const caught = code === 1 && /Prism (reports violations|answered)/.test(output);
  console.log(`prism-journey self-test: a narrowed response schema is ${caught ? 'caught (the journey fails, as it must)' : 'NOT caught'}`);
  if (!caught) console.log(output);
  return caught ? 0 : 1;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    void stopAll().then(() => {
      killAllSandboxServices();
      process.exit(1);
    });
  });
}
await main();
