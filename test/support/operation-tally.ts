/**
 * The suite's proof that every operation of the contract documents is exercised: each in-process
 * app tells this tally of every answer (src/http/pipeline.ts, and the token endpoint in
 * src/app.ts), and each answered with success (2xx, 304) is written, one file per test file and
 * jest worker, under .data/operation-tally/. After the whole suite, `make test` compares the
 * tally with the documents (scripts/test-summary.mjs): an operation no test answered with success
 * is a failure. A 401 or 404 does not count: the test that routes every operation anonymously
 * would otherwise cover them all.
 */
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';

export const TALLY_DIR = path.resolve(__dirname, '../../.data/operation-tally');

const answered = new Set<string>();

export function tallyAnswer(document: string, operationId: string, status: number): void {
  if (status < 400) answered.add(`${document} ${operationId}`);
}

/** Writes what this test file's apps answered so far (a file of its own: workers run in parallel). */
export function writeTally(): void {
  if (answered.size === 0) return;
  fs.mkdirSync(TALLY_DIR, { recursive: true });
  fs.writeFileSync(path.join(TALLY_DIR, `${process.pid}-${randomUUID()}.txt`), `${[...answered].join('\n')}\n`);
  answered.clear();
}
