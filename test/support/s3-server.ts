/**
 * The S3-protocol server a test needs, started by the test itself (scripts/support/s3-test-server.mjs,
 * @20minutes/s3rver from npm) in a child process on this machine, and stopped with it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';

export interface S3Server {
  port: number;
  bucket: string;
  /** DOCUMENT_STORE_URL for the service. */
  storeUrl: string;
  /** How many objects the bucket holds now. */
  objectCount(): Promise<number>;
  stop(): Promise<void>;
}

export async function startS3Server(bucket = 'documents'): Promise<S3Server> {
  const script = path.join(__dirname, '..', '..', 'scripts', 'support', 's3-test-server.mjs');
  const child: ChildProcess = spawn(process.execPath, [script, bucket], { stdio: ['pipe', 'pipe', 'inherit'] });
  const first = await new Promise<string>((resolve, reject) => {
    const lines = readline.createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the S3 test server exited (${code}) before listening`)));
  });
  const { port } = JSON.parse(first) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // The service's SDK reads its credentials from the environment; this server accepts any.
  process.env.AWS_ACCESS_KEY_ID ??= 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY ??= 'S3RVER';
  const client = new S3Client({
    endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    port,
    bucket,
    storeUrl: `s3://${bucket}/tests?endpoint=${encodeURIComponent(endpoint)}&region=us-east-1`,
    async objectCount() {
      let count = 0;
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
        count += page.KeyCount ?? 0;
        token = page.NextContinuationToken;
      } while (token);
      return count;
    },
    async stop() {
      client.destroy();
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
