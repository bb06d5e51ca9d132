#!/usr/bin/env node
/**
 * The Node 22 smoke check (make smoke-node22; CI runs it after the suite, which runs on Node 24):
 * the built service (dist/, as `npm start` runs it) started by Node 22 LTS on a fresh embedded
 * database, one token and one "List rental insurances" answered 200. Node 22 comes from the npm
 * registry like Node 24 does (the platform package node-linux-<cpu>, through npx's cache).
 *
 * Why a smoke check and not the whole suite again: the suite doubled CI's time when it ran on two
 * Node lines, and what differs between 22 and 24 for this service is whether it loads and starts
 * (module loading, native addons, the engines floor); the behaviour behind HTTP is the same code.
 */
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitWith } from './support/exit-with.mjs';
import { startSandboxService } from './support/sandbox-service.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const NODE_22 = '22.23.3';

/** The path of a Node 22 binary: npx fetches the platform package once and caches it. */
function node22() {
  const output = execFileSync(
    'npx',
    ['--yes', `--package=node-${process.platform}-${process.arch}@${NODE_22}`, '--', 'node', '-p', 'process.execPath + " " + process.version'],
    { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  ).trim();
  const [execPath, version] = output.split(' ');
  if (version !== `v${NODE_22}`) throw new Error(`expected Node v${NODE_22}, npx gave ${output}`);
  return execPath;
}

async function main() {
  const node = node22();
  execFileSync(node, [path.join(root, 'scripts/check-node.mjs')], { stdio: 'inherit' });
  const service = await startSandboxService({ name: 'node22', command: [node, path.join(root, 'dist/src/main.js')] });
  try {
    const token = await fetch(`${service.authUrl}/oauth2/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${service.clientId}:${service.clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials',
    });
    if (token.status !== 200) throw new Error(`token endpoint answered ${token.status}`);
    const { access_token: accessToken } = await token.json();
    const list = await fetch(`${service.baseUrl}/v1/rental-insurances`, { headers: { Authorization: `Bearer ${accessToken}` } });
    const body = await list.json();
    if (list.status !== 200 || !Array.isArray(body._embedded?.rentalInsurances)) {
      console.error(`smoke-node22: FAILED: List rental insurances answered ${list.status}\n${service.output()}`);
      return 1;
    }
    console.log(`smoke-node22: OK, the built service on Node ${NODE_22} issued a token and answered List rental insurances with 200`);
    return 0;
  } finally {
    await service.stop();
  }
}

exitWith('smoke-node22', main);
