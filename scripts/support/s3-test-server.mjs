#!/usr/bin/env node
/**
 * A real S3-protocol server for the documents' S3 variant (test/documents/documents-s3.test.ts) and
 * the bench: @20minutes/s3rver (npm, a maintained fork of s3rver) on 127.0.0.1, a fresh directory,
 * one bucket. Prints `{"port":<port>,"bucket":"<bucket>"}` on its first line once it listens, and
 * stops (removing its directory) on SIGTERM or when its parent's stdin closes.
 * It accepts any signature (`allowMismatchedSignatures`): it tests the protocol, not credentials.
 *   node scripts/support/s3-test-server.mjs [bucket]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from '@20minutes/s3rver';

const bucket = process.argv[2] ?? 'documents';
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
const server = new S3rver({
  address: '127.0.0.1',
  port: 0,
  silent: true,
  directory,
  allowMismatchedSignatures: true,
  configureBuckets: [{ name: bucket }],
});
const { port } = await server.run();
process.stdout.write(`${JSON.stringify({ port, bucket })}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.close().catch(() => undefined);
  fs.rmSync(directory, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
process.stdin.on('close', stop);
process.stdin.resume();
