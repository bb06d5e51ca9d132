/**
 * The documents' stack floor (documents-bench.ts): the least code that moves a document's bytes
 * into PostgreSQL and back out behind the same Bearer check, to set the service's uploads and
 * downloads beside. Upload: the same multipart request the service gets, its one file read with
 * busboy into memory, hashed and inserted as ONE bytea row; download: that row selected and sent.
 * No validation, type sniffing, idempotency, history, quota, staging or streaming: everything the
 * service adds is what the comparison shows. Its table is its own and emptied at start.
 *   node dist/bench/document-floor-server.js <port> <databaseUrl>
 */
import { createHash } from 'node:crypto';
import busboy from 'busboy';
import express, { type Request } from 'express';
import pg from 'pg';
import { TOKEN_CHECK } from './floor-token-check';

const [port, databaseUrl] = [Number(process.argv[2]), process.argv[3]!];
const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
const tokenHash = (req: Request) => {
  const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
  return token ? createHash('sha256').update(token).digest('base64url') : undefined;
};

/** The bytes of the request's first file part. */
function fileOf(req: Request): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const parser = busboy({ headers: req.headers });
    parser.on('file', (_name, stream) => stream.on('data', (chunk: Buffer) => chunks.push(chunk)));
    parser.on('close', () => resolve(Buffer.concat(chunks)));
    parser.on('error', reject);
    req.pipe(parser);
  });
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.post('/documents', async (req, res) => {
  const hash = tokenHash(req);
  if (!hash) return void res.status(401).end();
  const bytes = await fileOf(req);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const { rows } = await pool.query<{ id: string }>({
    name: 'floor-document-insert',
    text: `WITH bearer AS (${TOKEN_CHECK} $1)
           INSERT INTO bench_floor_documents (company_id, sha256, data) SELECT company_id, $2, $3 FROM bearer RETURNING id`,
    values: [hash, sha256, bytes],
  });
  if (!rows[0]) return void res.status(401).end();
  res.status(201).json({ id: Number(rows[0].id), size: bytes.length, sha256 });
});
app.get('/documents/:id', async (req, res) => {
  const hash = tokenHash(req);
  if (!hash) return void res.status(401).end();
  const { rows } = await pool.query<{ data: Buffer }>({
    name: 'floor-document-select',
    text: `WITH bearer AS (${TOKEN_CHECK} $1) SELECT data FROM bench_floor_documents WHERE id = $2 AND company_id = (SELECT company_id FROM bearer)`,
    values: [hash, req.params.id],
  });
  if (!rows[0]) return void res.status(404).end();
  res.type('application/pdf').send(rows[0].data);
});
app.get('/ready', (_req, res) => void res.json({ ok: true }));

async function main(): Promise<void> {
  await pool.query(`CREATE TABLE IF NOT EXISTS bench_floor_documents (
    id bigserial PRIMARY KEY, company_id text NOT NULL, sha256 text NOT NULL, data bytea NOT NULL)`);
  // As the service's chunks: PDF bytes are compressed already.
  await pool.query('ALTER TABLE bench_floor_documents ALTER COLUMN data SET STORAGE EXTERNAL');
  await pool.query('TRUNCATE bench_floor_documents');
  const server = app.listen(port, '127.0.0.1', () => console.log(`document floor listening on ${port}`));
  process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
