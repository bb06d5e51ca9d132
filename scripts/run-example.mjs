#!/usr/bin/env node
/**
 * Runs the example integration (examples/typescript, built) against a real sandbox service whose
 * reviewer and signers act within seconds, as a partner would run it against our sandbox
 * (make example; CI runs it). It fails unless the example ends well, the guarantee reaches
 * `active`, and nothing the example printed contains the client secret or an access token.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkExampleWebhookHandler } from './support/example-webhooks.mjs';
import { exitWith } from './support/exit-with.mjs';
import { startSandboxService } from './support/sandbox-service.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const EXAMPLE = path.join(root, 'examples/typescript/dist/main.js');

function run(env) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [EXAMPLE], {
      cwd: path.dirname(EXAMPLE),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

async function main() {
  const started = Date.now();
  const service = await startSandboxService({
    name: 'example',
    env: { SCHEDULER_INTERVAL_MS: '500', SANDBOX_REVIEW_DELAY_SECONDS: '1', SANDBOX_SIGNING_DELAY_SECONDS: '1' },
  });
  try {
    const { code, output } = await run({
      RG_BASE_URL: service.baseUrl,
      RG_AUTH_URL: service.authUrl,
      RG_CLIENT_ID: service.clientId,
      RG_CLIENT_SECRET: service.clientSecret,
      RG_RENTAL_AMOUNT: '3500',
      RG_WAIT_SECONDS: '60',
    });
    const leaked = output.includes(service.clientSecret) || /sbx_at_[A-Za-z0-9_-]{10,}/.test(output);
    const printed = output.split(service.clientSecret).join('[redacted]');
    console.log(printed.trimEnd());
    const problems = [];
    if (code !== 0) problems.push(`the example exited with ${code}`);
    if (!/now: rental insurance \d+: active/.test(output)) problems.push('the guarantee did not become active');
    if (!/already submitted: same guarantee/.test(output)) problems.push('the repeated submission was not answered by the replay');
    if (!/attached 1 document\(s\): comprovante-renda\.pdf \(application\/pdf/.test(output)) problems.push("the tenant's document was not attached");
    if (!/contract downloaded to .* bytes, SHA-256 [0-9a-f]{16}\.\.\., checked\)/.test(output)) problems.push('the contract was not downloaded');
    if (leaked) problems.push('the example printed the client secret or an access token');
    if (problems.length > 0) {
      console.error(`example: FAILED: ${problems.join('; ')}`);
      return 1;
    }
    console.log(
      `example: OK, examples/typescript took a guarantee from creation to active in the sandbox (${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
    const webhooks = await checkExampleWebhookHandler(root, service);
    console.log(webhooks.output);
    if (webhooks.problems.length > 0) {
      console.error(`example: FAILED: ${webhooks.problems.join('; ')}`);
      return 1;
    }
    console.log('example: OK, the example webhook handler verified and handled the events rental-guarantee listen forwarded');
    return 0;
  } finally {
    await service.stop();
  }
}

exitWith('example', main);
