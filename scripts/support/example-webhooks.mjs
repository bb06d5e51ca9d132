/**
 * The example webhook handler (examples/typescript/src/webhook-handler.ts, built) receiving the
 * sandbox's events through `rental-guarantee listen` (the client's command, built), as a partner
 * does on a laptop: run by scripts/run-example.mjs after the example integration, so the events
 * of its guarantee are in the feed. The listen state file is written first with a known local
 * secret, which the handler is given; the check passes when the handler verified and handled the
 * guarantee's activation and refused nothing.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './sandbox-service.mjs';

function start(root, script, args, env) {
  const child = spawn(process.execPath, [path.join(root, script), ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const run = { child, output: '' };
  child.stdout.on('data', (chunk) => (run.output += chunk));
  child.stderr.on('data', (chunk) => (run.output += chunk));
  return run;
}

async function waitFor(condition, ms) {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** @returns {Promise<{ problems: string[], output: string }>} */
export async function checkExampleWebhookHandler(root, service) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'example-webhooks-'));
  const stateFile = path.join(dir, 'listen.json');
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  fs.writeFileSync(stateFile, JSON.stringify({ secret, cursors: {} }), { mode: 0o600 });
  const port = await freePort();
  const handler = start(root, 'examples/typescript/dist/webhook-handler.js', [], { RG_WEBHOOK_SECRETS: secret, PORT: String(port) });
  let listen;
  try {
    await waitFor(() => handler.output.includes('listening on'), 10_000);
    listen = start(
      root,
      'clients/typescript/dist/cli/main.js',
      ['listen', '--forward-to', `http://127.0.0.1:${port}/webhooks`, '--state-file', stateFile, '--from-start', '--poll-interval', '0.5'],
      { RG_BASE_URL: service.baseUrl, RG_AUTH_URL: service.authUrl, RG_CLIENT_ID: service.clientId, RG_CLIENT_SECRET: service.clientSecret },
    );
    const activated = await waitFor(() => /: accepted -> active/.test(handler.output), 30_000);
    const problems = [];
    if (!activated) problems.push('the handler did not handle the activation forwarded by listen');
    if (/refused a delivery/.test(handler.output)) problems.push('the handler refused a delivery that listen signed');
    if (!/-> 204 \(\d+ ms\)/.test(listen.output)) problems.push("listen did not show the handler's 204");
    const output = `${listen.output.trimEnd()}\n${handler.output.trimEnd()}`.split(service.clientSecret).join('[redacted]');
    return { problems, output };
  } finally {
    handler.child.kill('SIGTERM');
    listen?.child.kill('SIGTERM');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
