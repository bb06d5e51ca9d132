/**
 * The write floor (issue 38 item 3): what a create could cost on this stack. A minimal Express 5
 * endpoint that, for `POST /rental-insurances` with an Idempotency-Key, runs the statements of the
 * service's create in ONE Prisma interactive transaction: the key's claim with the same Bearer check
 * as the read floor (floor-server.ts) joined in, the guarantee's insert, then one last statement
 * holding the stored answer with the history row and the event (the service's own builders:
 * guarantee-repository.ts, history.ts, outbox.ts, idempotency-store.ts). The body is put in column
 * form as the insert needs it (guarantee-input.ts) but not validated against the contract; no
 * pipeline, rate limit, request log, metrics or logging. Answers 201 with the same body as the
 * service, or the stored answer of a key already used. Run as its own process by the benchmark:
 *   node dist/bench/write-floor-server.js <port> <databaseUrl>
 */
import { createHash } from 'node:crypto';
import express from 'express';
import { createDatabaseClient } from '../src/database/prisma-client';
import { UnitOfWork } from '../src/database/unit-of-work';
import { Prisma } from '../src/generated/prisma/client';
import { emitGuaranteeEvents } from '../src/guarantees/transitions/guarantee-change';
import { FieldProblems } from '../src/validation/field-problems';
import { createColumns } from '../src/guarantees/guarantee-input';
import { toRentalInsurance } from '../src/guarantees/guarantee-mapper';
import { insertGuarantee } from '../src/guarantees/guarantee-repository';
import { recordHistory } from '../src/guarantees/history';
import { CREATION_EFFECTS, INITIAL_STATUS } from '../src/guarantees/transitions/status-machine';
import { saveRecord } from '../src/http/idempotency-store';

const [port, databaseUrl] = [Number(process.argv[2]), process.argv[3]!];
const db = createDatabaseClient(databaseUrl, { poolMax: 20 });

const TOKEN_CHECK = Prisma.raw(`SELECT t.company_id, c.display_name FROM access_tokens t
  JOIN credentials c ON c.id = t.credential_id JOIN credential_secrets s ON s.id = t.secret_id
  WHERE t.expires_at > now() AND c.revoked_at IS NULL AND s.revoked_at IS NULL AND t.token_hash =`);

interface Claim {
  companyId: string;
  creator: string;
  locked: boolean;
  status: number | null;
  body: string | null;
}

type Answer = { status: number; body?: string };

/** The token's company and credential name, the key's advisory lock and its stored answer, in one statement (none: the token is not valid). */
async function claim(tx: Prisma.TransactionClient, tokenHash: string, key: string): Promise<Claim | undefined> {
  const [row] = await tx.$queryRaw<Claim[]>`
    WITH bearer AS (${TOKEN_CHECK} ${tokenHash})
    SELECT b.company_id AS "companyId", b.display_name AS creator,
           pg_try_advisory_xact_lock(hashtextextended(length(b.company_id) || ':' || b.company_id || ${key}::text, 0)) AS locked,
           r.response_status AS status, r.response_body AS body
    FROM bearer b LEFT JOIN idempotency_records r ON r.company_id = b.company_id AND r.key = ${key}`;
  return row;
}

async function create(tokenHash: string, key: string, body: Record<string, unknown>): Promise<Answer> {
  return db.$transaction(async (tx) => {
    const claimed = await claim(tx, tokenHash, key);
    if (!claimed) return { status: 401 };
    if (claimed.status !== null) return { status: claimed.status, body: claimed.body ?? undefined };
    if (!claimed.locked) return { status: 409 };
    const { columns, coTenants } = createColumns(new FieldProblems(), body);
    const actor = { name: claimed.creator, serviceAccount: true };
    const row = await insertGuarantee(
      tx,
      {
        ...columns,
        companyId: claimed.companyId,
        status: INITIAL_STATUS,
        version: 1,
        creatorName: actor.name,
        creatorServiceAccount: true,
      },
      coTenants,
    );
    const unit = UnitOfWork.of(tx);
    const comment = 'Rental insurance created; review started.';
    recordHistory(unit, { rentalInsuranceId: row.id, kind: 'created', actor, comment, previousStatus: null, status: INITIAL_STATUS });
    await emitGuaranteeEvents(unit, {
      row,
      previousStatus: null,
      status: INITIAL_STATUS,
      effects: CREATION_EFFECTS,
      signaturesChanged: false,
      comment,
    });
    const answer = JSON.stringify(toRentalInsurance(row));
    const outcome = { fingerprint: key, responseStatus: 201, responseHeaders: { ETag: `W/"${row.version}"` }, responseBody: answer };
    return (await saveRecord(unit, claimed.companyId, key, outcome)) ? { status: 201, body: answer } : { status: 409 };
  });
}

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
app.get('/ready', (_req, res) => void res.status(200).end());
app.post('/rental-insurances', express.json(), async (req, res) => {
  const token = /^Bearer (.+)$/.exec(req.get('authorization') ?? '')?.[1];
  const key = req.get('idempotency-key');
  if (!token) return void res.status(401).end();
  if (!key) return void res.status(400).end();
  const answer = await create(createHash('sha256').update(token).digest('base64url'), key, req.body as Record<string, unknown>);
  res.status(answer.status).type('application/json').end(answer.body);
});
const server = app.listen(port, '127.0.0.1', () => console.log(`write floor listening on ${port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
