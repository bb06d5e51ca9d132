/**
 * The stack floor: a minimal Express 5 endpoint that reads a guarantee by id with the same Bearer
 * check as the service, in ONE statement (the token's company joined in), with no validation and
 * no logging, mapped to the same response body. Run as its own process by the benchmark, in one of
 * three modes: `prisma` (Prisma Client's tagged raw SQL on the pg adapter), `adapter` (the same
 * statement sent through Prisma's driver adapter as the service's busiest reads are,
 * src/database/direct-reads.ts) and `pg` (a prepared statement on the pg driver itself). The
 * service's get by id is reported as a fraction of each.
 *   node dist/bench/floor-server.js <port> <prisma|adapter|pg> <databaseUrl>
 */
import { createHash } from 'node:crypto';
import express from 'express';
import pg from 'pg';
import { Prisma } from '../src/generated/prisma/client';
import { createDatabaseClient } from '../src/database/prisma-client';
import { readRows } from '../src/database/direct-reads';
import { CO_TENANTS_OF_R, ROW_FIELDS, toGuaranteeRow, type GuaranteeRecord } from '../src/guarantees/guarantee-repository';
import { toRentalInsurance } from '../src/guarantees/guarantee-mapper';
import { TOKEN_CHECK } from './floor-token-check';

const [port, mode, databaseUrl] = [Number(process.argv[2]), process.argv[3], process.argv[4]!];

const FROM_GUARANTEES = 'FROM rental_insurances r WHERE r.company_id = (SELECT company_id FROM bearer) AND r.id =';
const STATEMENT = `WITH bearer AS (${TOKEN_CHECK} $1) SELECT ${ROW_FIELDS.text}, ${CO_TENANTS_OF_R.text} ${FROM_GUARANTEES} $2`;

type Reader = (tokenHash: string, id: bigint) => Promise<GuaranteeRecord[]>;

function prismaReader(): Reader {
  const db = createDatabaseClient(databaseUrl, { poolMax: 20 });
  return (tokenHash, id) =>
    db.$queryRaw<
      GuaranteeRecord[]
    >`WITH bearer AS (${Prisma.raw(TOKEN_CHECK)} ${tokenHash}) SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R} ${Prisma.raw(FROM_GUARANTEES)} ${id}`;
}

function adapterReader(): Reader {
  const db = createDatabaseClient(databaseUrl, { poolMax: 20 });
  return (tokenHash, id) =>
    readRows<GuaranteeRecord>(
      db,
      Prisma.sql`WITH bearer AS (${Prisma.raw(TOKEN_CHECK)} ${tokenHash}) SELECT ${ROW_FIELDS}, ${CO_TENANTS_OF_R} ${Prisma.raw(FROM_GUARANTEES)} ${id}`,
    );
}

function pgReader(): Reader {
  // The values as Prisma returns them: int8 as bigint, numeric as Decimal, date as a UTC-midnight Date.
  const types = {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === 20) return (value: string) => BigInt(value);
      if (oid === 1700) return (value: string) => new Prisma.Decimal(value);
      if (oid === 1082) return (value: string) => new Date(`${value}T00:00:00.000Z`);
      return pg.types.getTypeParser(oid, format);
    },
  } as pg.CustomTypesConfig;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20 });
  return async (tokenHash, id) =>
    (await pool.query({ name: 'floor-get', text: STATEMENT, values: [tokenHash, id.toString()], types })).rows as GuaranteeRecord[];
}

const read = mode === 'pg' ? pgReader() : mode === 'adapter' ? adapterReader() : prismaReader();
const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/rental-insurances/:id', async (req, res) => {
  const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
  if (!token) return void res.status(401).end();
  const [record] = await read(createHash('sha256').update(token).digest('base64url'), BigInt(req.params.id));
  if (!record) return void res.status(404).end();
  const row = toGuaranteeRow(record);
  res.set('ETag', `W/"${row.version}"`).json(toRentalInsurance(row));
});
const server = app.listen(port, '127.0.0.1', () => console.log(`floor (${mode}) listening on ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
