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
 * Requests that must fail are valid by the schema and wrong by the rules (check digits, date
 * order, an unknown id, an unknown token), so that Prism forwards them and validates the answer.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const args = process.argv.slice(2);
const STARTUP_TIMEOUT_MS = 90_000;
const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

const children = [];
let tmp;

async function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Spawns a child in its own process group, collects its output, resolves when `ready` matches it. */
function start(name, command, commandArgs, env, ready) {
  const child = spawn(command, commandArgs, { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push({ name, child });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${STARTUP_TIMEOUT_MS / 1000} s:\n${output}`)), STARTUP_TIMEOUT_MS);
    const onData = (chunk) => {
      output += chunk;
      const match = ready(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited (${code ?? signal}) before it was ready:\n${output}`));
    });
  });
}

async function stopAll() {
  for (const { child } of children.reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid, 'SIGTERM'); // its process group: npx/tsx wrappers and their node
    } catch {
      /* already gone */
    }
    const timeout = new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000));
    if ((await Promise.race([exited, timeout])) === 'timeout') {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  }
  if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
}

async function startService() {
  const port = await freePort();
  const env = { ...process.env };
  delete env.DATABASE_URL; // always a fresh embedded database of its own
  Object.assign(env, {
    ENVIRONMENT: 'sandbox',
    HOST: '127.0.0.1',
    PORT: String(port),
    EMBEDDED_DB_DIR: path.join(tmp, 'postgres'),
    EMBEDDED_DB_PORT: String(await freePort()),
    DEMO_CREDENTIAL: 'true',
    LOG_LEVEL: 'warn',
    SCHEDULER_INTERVAL_MS: '0',
  });
  const { match } = await start('service', bin('tsx'), ['src/main.ts'], env, (out) => {
    const id = /client_id:\s+(\S+)/.exec(out);
    const secret = /client_secret:\s+(\S+)/.exec(out);
    return id && secret ? { clientId: id[1], clientSecret: secret[1] } : undefined;
  });
  return { origin: `http://127.0.0.1:${port}`, ...match };
}

async function startPrism(contract, upstream) {
  const port = await freePort();
  await start(
    'prism',
    bin('prism'),
    ['proxy', contract, upstream, '--errors', '--port', String(port), '--host', '127.0.0.1'],
    { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    (out) => /Prism is listening/.test(out),
  );
  return `http://127.0.0.1:${port}`;
}

async function issueToken(service) {
  const basic = Buffer.from(`${encodeURIComponent(service.clientId)}:${encodeURIComponent(service.clientSecret)}`).toString('base64');
  const response = await fetch(`${service.origin}/auth/oauth2/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}

const CPF_TENANT = '52998224725';
const CPF_CO_TENANT = '11144477735';
const CPF_CO_TENANT_2 = '39053344705';

function guaranteeBody(overrides = {}) {
  return {
    externalId: 'CTR-JOURNEY-1',
    tenant: { cpfCnpj: '529.982.247-25', name: 'Maria José da Silva', email: 'maria.silva@example.com', birthDate: '1988-04-12', phoneNumber: '(11) 98765-4321', profession: 'Engenheira civil' },
    property: {
      externalId: 'IMV-JOURNEY-1',
      type: 'apartment',
      address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1000', complement: 'Apto 82', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
    },
    coTenants: [{ cpfCnpj: CPF_CO_TENANT, name: 'João Pereira Santos', email: 'joao.santos@example.com', birthDate: '1986-09-30', phoneNumber: '+5511912345678' }],
    rentalAmount: 3500,
    condoFee: 850,
    propertyTax: 210.35,
    otherFees: null,
    setupFee: 150,
    ...overrides,
  };
}

/** The journey: each step goes through Prism; returns the list of problems found. */
async function journey(prism, token) {
  const problems = [];
  const log = [];
  const auth = { Authorization: `Bearer ${token}` };
  const call = async (label, method, pathAndQuery, { headers = {}, body, expect } = {}) => {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      init.headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${prism}${pathAndQuery}`, init);
    const text = await response.text();
    const violations = response.headers.get('sl-violations');
    const prismError = (response.headers.get('content-type') ?? '').startsWith('application/problem+json') || /^https:\/\/stoplight\.io\/prism\/errors#/.test(text.slice(0, 200));
    const json = (() => {
      try {
        return text ? JSON.parse(text) : undefined;
      } catch {
        return undefined;
      }
    })();
    const ok = expect.includes(response.status) && !violations && !prismError;
    log.push(`  ${ok ? 'ok  ' : 'FAIL'} ${response.status} ${method.padEnd(6)} ${pathAndQuery.split('?')[0]}  ${label}`);
    if (violations) problems.push(`${label}: Prism reports violations: ${violations}`);
    if (prismError) problems.push(`${label}: Prism answered ${response.status} itself: ${text.slice(0, 2000)}`);
    if (!expect.includes(response.status)) problems.push(`${label}: expected ${expect.join(' or ')}, got ${response.status}: ${text.slice(0, 500)}`);
    return { status: response.status, headers: response.headers, json, text };
  };
  const write = (key = randomUUID()) => ({ ...auth, 'Idempotency-Key': key });

  // Guarantees
  const createKey = randomUUID();
  const created = await call('create a guarantee', 'POST', '/v1/rental-insurances', { headers: write(createKey), body: guaranteeBody(), expect: [201] });
  const id = created.json?.id;
  if (!id) return { problems: [...problems, 'create returned no id: the rest of the journey cannot run'], log };
  const replay = await call('replay the creation (same key and body)', 'POST', '/v1/rental-insurances', { headers: write(createKey), body: guaranteeBody(), expect: [201] });
  if (replay.headers.get('idempotent-replay') !== 'true' || replay.json?.id !== id) problems.push('idempotent replay: expected Idempotent-Replay: true and the same guarantee');
  await call('same key, other body', 'POST', '/v1/rental-insurances', { headers: write(createKey), body: guaranteeBody({ rentalAmount: 3600 }), expect: [400] });
  await call('create with wrong CPF check digits', 'POST', '/v1/rental-insurances', {
    headers: write(),
    body: guaranteeBody({ tenant: { ...guaranteeBody().tenant, cpfCnpj: '529.982.247-24' } }),
    expect: [400],
  });
  await call('create a second guarantee', 'POST', '/v1/rental-insurances', {
    headers: write(),
    body: guaranteeBody({ externalId: null, coTenants: [], tenant: { cpfCnpj: '11222333000181', name: 'Padaria Bela Vista Ltda' }, rentalAmount: 12000 }),
    expect: [201],
  });

  const read = await call('read it', 'GET', `/v1/rental-insurances/${id}`, { headers: auth, expect: [200] });
  await call('poll it with If-None-Match', 'GET', `/v1/rental-insurances/${id}`, { headers: { ...auth, 'If-None-Match': read.headers.get('etag') ?? 'W/"1"' }, expect: [304] });
  await call('read an unknown guarantee', 'GET', '/v1/rental-insurances/987654321', { headers: auth, expect: [404] });
  await call('read without a valid token', 'GET', `/v1/rental-insurances/${id}`, { headers: { Authorization: 'Bearer sbx_at_not_a_token' }, expect: [401] });

  await call('list page 0', 'GET', '/v1/rental-insurances', { headers: auth, expect: [200] });
  await call('list with every filter', 'GET', `/v1/rental-insurances?tenantName=jose&tenantCpfCnpj=${CPF_TENANT}&propertyExternalId=IMV-JOURNEY-1&status=under_review&status=approved&page=0&pageSize=5`, { headers: auth, expect: [200] });
  await call('list beyond the last page, clamped page size', 'GET', '/v1/rental-insurances?page=9&pageSize=500', { headers: auth, expect: [200] });

  const patchHeaders = (etag) => ({ ...write(), 'If-Match': etag, 'Content-Type': 'application/merge-patch+json' });
  const patched = await call('merge-patch with If-Match', 'PATCH', `/v1/rental-insurances/${id}`, {
    headers: patchHeaders(read.headers.get('etag') ?? 'W/"1"'),
    body: { rentalAmount: 3700, tenant: { profession: 'Arquiteta' }, property: { address: { complement: null } } },
    expect: [200],
  });
  await call('merge-patch with a stale If-Match', 'PATCH', `/v1/rental-insurances/${id}`, { headers: patchHeaders('W/"1"'), body: { externalId: 'CTR-JOURNEY-2' }, expect: [412] });
  let etag = patched.headers.get('etag') ?? 'W/"2"';

  await call('comment', 'POST', `/v1/rental-insurances/${id}/comments`, { headers: write(), body: { comment: 'O locatário enviou o comprovante de renda.' }, expect: [201] });
  await call('history', 'GET', `/v1/rental-insurances/${id}/history`, { headers: auth, expect: [200] });
  await call('signatures (none before accepting)', 'GET', `/v1/rental-insurances/${id}/signatures`, { headers: auth, expect: [200] });
  await call('accept while under review', 'POST', `/v1/rental-insurances/${id}/accept`, { headers: write(), expect: [409] });
  await call('refuse while under review', 'POST', `/v1/rental-insurances/${id}/refuse`, { headers: write(), expect: [409] });

  // Co-tenants
  const added = await call('add a co-tenant', 'POST', `/v1/rental-insurances/${id}/co-tenants`, {
    headers: { ...write(), 'If-Match': etag },
    body: { cpfCnpj: CPF_CO_TENANT_2, name: 'Ana Beatriz Costa', email: 'ana.costa@example.com' },
    expect: [201],
  });
  etag = added.headers.get('etag') ?? etag;
  const changed = await call('merge-patch a co-tenant', 'PATCH', `/v1/rental-insurances/${id}/co-tenants/${CPF_CO_TENANT_2}`, { headers: patchHeaders(etag), body: { phoneNumber: '(21) 99876-5432' }, expect: [200] });
  etag = changed.headers.get('etag') ?? etag;
  await call('add a duplicate co-tenant', 'POST', `/v1/rental-insurances/${id}/co-tenants`, { headers: { ...write(), 'If-Match': etag }, body: { cpfCnpj: CPF_TENANT, name: 'Maria José da Silva' }, expect: [409] });
  await call('remove a co-tenant', 'DELETE', `/v1/rental-insurances/${id}/co-tenants/${CPF_CO_TENANT}`, { headers: { ...write(), 'If-Match': etag }, expect: [200] });

  // Financial records
  await call('balance', 'GET', '/v1/financial/balance', { headers: auth, expect: [200] });
  await call('daily summaries', 'GET', '/v1/financial/daily-summaries?startDate=2025-01-01&endDate=2025-01-31', { headers: auth, expect: [200] });
  await call('statement entries with type filter', 'GET', '/v1/financial/statement-entries?startDate=2025-01-01&endDate=2025-12-31&type=fee&type=charge_paid&pageSize=10', { headers: auth, expect: [200] });
  await call('daily summaries, dates reversed', 'GET', '/v1/financial/daily-summaries?startDate=2026-03-02&endDate=2026-03-01', { headers: auth, expect: [400] });

  // The published contract
  await call('openapi.json (public)', 'GET', '/openapi.json', { expect: [200] });
  return { problems, log };
}

async function run(contract) {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-journey-'));
  const service = await startService();
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
      console.error(`prism-journey: FAILED (${problems.length} problem(s)) against ${path.relative(root, contract)}:\n  - ${problems.join('\n  - ')}`);
      status = 1;
    } else {
      console.log(`prism-journey: OK, ${log.length} requests through Prism without a violation (${elapsed()})`);
    }
  } catch (error) {
    console.error(`prism-journey: ERROR ${error instanceof Error ? error.message : error}`);
    status = 1;
  } finally {
    await stopAll();
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
    void stopAll().then(() => process.exit(1));
  });
}
await main();
