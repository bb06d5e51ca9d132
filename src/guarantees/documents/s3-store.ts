/**
 * An S3-compatible object store (AWS S3, Ceph RGW, MinIO, GCS interoperability) through the AWS
 * SDK for JavaScript v3, selected by DOCUMENT_STORE_URL:
 *   s3://<bucket>[/<prefix>][?endpoint=<url>&region=<region>&forcePathStyle=true]
 * Credentials come from the SDK's usual sources (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, a
 * profile, an instance role), never from this URL, so that the setting can be shown and logged.
 * Uploads are streamed as multipart uploads of 5 MiB parts (lib-storage), one part in flight.
 * The SDK (about 20 MB of a process's memory) is loaded only by a process that stores in S3.
 */
import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import type { DocumentStore, StoreWriter } from './store-interface';

export interface S3Location {
  bucket: string;
  prefix: string;
  endpoint?: string;
  region: string;
  forcePathStyle: boolean;
}

export function parseStoreUrl(url: string): S3Location {
  const parsed = new URL(url);
  if (parsed.protocol !== 's3:' || !parsed.hostname) throw new Error('DOCUMENT_STORE_URL must be s3://<bucket>[/<prefix>][?endpoint=...&region=...]');
  if (parsed.username || parsed.password)
    throw new Error('DOCUMENT_STORE_URL must not carry credentials: use AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY');
  const prefix = parsed.pathname.replace(/^\/+|\/+$/g, '');
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined;
  return {
    bucket: parsed.hostname,
    prefix: prefix ? `${prefix}/` : '',
    ...(endpoint ? { endpoint } : {}),
    region: parsed.searchParams.get('region') ?? process.env.AWS_REGION ?? 'us-east-1',
    forcePathStyle: parsed.searchParams.get('forcePathStyle') === 'true' || endpoint !== undefined,
  };
}

export async function s3Store(url: string): Promise<DocumentStore> {
  const location = parseStoreUrl(url);
  const [{ DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client }, { Upload }] = await Promise.all([
    import('@aws-sdk/client-s3'),
    import('@aws-sdk/lib-storage'),
  ]);
  const client = new S3Client({
    region: location.region,
    forcePathStyle: location.forcePathStyle,
    ...(location.endpoint ? { endpoint: location.endpoint } : {}),
    // Third-party stores do not all support the SDK's newer default checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const Bucket = location.bucket;
  const objectKey = (key: string) => `${location.prefix}${key}`;
  return {
    name: 's3',
    writer(key: string): StoreWriter {
      const body = new PassThrough({ highWaterMark: 256 * 1024 });
      const upload = new Upload({ client, params: { Bucket, Key: objectKey(key), Body: body }, partSize: 5 * 1024 * 1024, queueSize: 1 });
      const done = upload.done();
      // Until `end` awaits it, a failure is kept, not left unhandled.
      let failure: unknown;
      done.catch((error: unknown) => {
        failure = error;
      });
      return {
        async write(chunk) {
          if (failure) throw failure;
          if (!body.write(chunk)) await Promise.race([once(body, 'drain'), done]);
        },
        async end() {
          body.end();
          await done;
        },
        async abort() {
          body.destroy();
          await upload.abort().catch(() => undefined);
        },
      };
    },
    async put(_db, key, bytes) {
      await client.send(new PutObjectCommand({ Bucket, Key: objectKey(key), Body: bytes, ContentLength: bytes.length }));
    },
    async open(key) {
      const answer = await client.send(new GetObjectCommand({ Bucket, Key: objectKey(key) }));
      return answer.Body as Readable;
    },
    async remove(keys) {
      for (const key of keys) await client.send(new DeleteObjectCommand({ Bucket, Key: objectKey(key) }));
    },
    async close() {
      client.destroy();
    },
  };
}
