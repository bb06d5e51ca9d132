/** Optic, run offline (no account, no cloud) with the standard in scripts/contract/optic-standard.yml. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './published-contract.mjs';

const STANDARD = 'scripts/contract/optic-standard.yml';
const OPTIC = path.join(root, 'node_modules/.bin/optic');
// Optic sends no telemetry with this level; nothing it does here needs the network.
const OPTIC_ENV = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'none', SCARF_ANALYTICS: 'false', NO_UPDATE_NOTIFIER: '1', FORCE_COLOR: '0' };

/** `optic diff <before> <after> --check`: its exit code and everything it printed. */
export function runOptic(before, after) {
  return new Promise((resolve) => {
    const child = spawn(OPTIC, ['diff', before, after, '--check', '--standard', STANDARD], { cwd: root, env: OPTIC_ENV });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('close', (code) => {
      // With CI=true Optic also writes a report file into its working directory; it is not wanted.
      fs.rmSync(path.join(root, 'ci-run-details.json'), { force: true });
      resolve({ code, output });
    });
  });
}
