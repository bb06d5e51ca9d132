#!/usr/bin/env node
// Prints the closing line CI counts: "N passed, N failed" (", N skipped" when any), from
// `jest --json` result files (several are summed). A missing file is one failure: that run never
// reported.
// With --operation-tally=DIR (the whole suite's tally, test/support/operation-tally.ts), every
// operation of the partner, token, back-office and console documents that no test answered with success
// is printed and counts as one failure.
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const DOCUMENTS = ['openapi/partner.yaml', 'openapi/auth.yaml', 'openapi/back-office.yaml', 'openapi/console.yaml'];
const METHODS = ['get', 'put', 'post', 'patch', 'delete'];

const tallyOption = process.argv.find((arg) => arg.startsWith('--operation-tally='));
const files = process.argv.slice(2).filter((arg) => arg !== tallyOption);
let [passed, failed, skipped] = [0, 0, 0];
if (files.length === 0) failed = 1;
for (const file of files) {
  if (!fs.existsSync(file)) {
    failed += 1;
    continue;
  }
  const results = JSON.parse(fs.readFileSync(file, 'utf8'));
  passed += results.numPassedTests;
  skipped += results.numPendingTests + results.numTodoTests;
  // A suite that failed to run counts as one failure: its tests never reported.
  failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
}
if (tallyOption) {
  const dir = tallyOption.slice('--operation-tally='.length);
  const answered = new Set(
    (fs.existsSync(dir) ? fs.readdirSync(dir) : []).flatMap((name) => fs.readFileSync(path.join(dir, name), 'utf8').split('\n').filter(Boolean)),
  );
  const unanswered = DOCUMENTS.flatMap((document) =>
    Object.values(YAML.parse(fs.readFileSync(document, 'utf8')).paths ?? {}).flatMap((item) =>
      METHODS.filter((method) => item[method]).map((method) => `${document} ${item[method].operationId}`),
    ),
  ).filter((operation) => !answered.has(operation));
  if (unanswered.length > 0) {
    console.log(`Operations no test answered with success (write their tests):\n  ${unanswered.join('\n  ')}`);
    failed += unanswered.length;
    process.exitCode = 1;
  }
}
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
