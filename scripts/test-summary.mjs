#!/usr/bin/env node
// Prints the closing line CI counts: "N passed, N failed" (", N skipped" when any), from jest --json.
import fs from 'node:fs';

const file = process.argv[2];
if (!file || !fs.existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const results = JSON.parse(fs.readFileSync(file, 'utf8'));
const skipped = results.numPendingTests + results.numTodoTests;
// A suite that failed to run counts as one failure: its tests never reported.
const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
console.log(`${results.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
