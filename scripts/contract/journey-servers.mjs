/** Prism in front of the service (scripts/support/sandbox-service.mjs), and the token the journey uses. */
import path from 'node:path';
import { freePort } from '../support/sandbox-service.mjs';
import { root, start } from './journey-processes.mjs';

const bin = (name) => path.join(root, 'node_modules/.bin', name);

/** Prism in proxy mode with --errors in front of `upstream`, validating against `contract`. */
export async function startPrism(contract, upstream) {
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

/** A token straight from the service: the token endpoint is in openapi/auth.yaml, not behind Prism. */
export async function issueToken(service) {
  const basic = Buffer.from(`${encodeURIComponent(service.clientId)}:${encodeURIComponent(service.clientSecret)}`).toString('base64');
  const response = await fetch(`${service.origin}/auth/oauth2/token`, {
    method: 'POST',
    headers: { Authorization: `Basic ${basic}`, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${await response.text()}`);
  return (await response.json()).access_token;
}
