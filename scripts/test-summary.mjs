#!/usr/bin/env node
// Prints the closing line CI counts: "N passed, N failed" (", N skipped" when any), from one or
// more `jest --json` result files (the suite under each Node version), summed. A missing file is
// one failure: that run never reported.
import fs from 'node:fs';

const files = process.argv.slice(2);
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
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}`);
