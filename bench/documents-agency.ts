/**
 * The documents bench's own agency (`bench-documents`, documents-bench.ts) on the bench database:
 * its credential, its guarantees (made through the API once, reused by later runs), and the removal
 * of everything its uploads stored.
 */
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { createDatabaseClient } from '../src/database/prisma-client';
import { send } from './document-requests';

export const COMPANY = 'bench-documents';
const GUARANTEES = 200;
const API = '/rental-guarantee/v1/rental-insurances';

/** Deletes what the documents bench stored in an earlier run or this one. */
export async function wipe(url: string): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`DELETE FROM document_chunks WHERE storage_key LIKE $1`, [`documents/${encodeURIComponent(COMPANY)}/%`]);
    for (const table of ['document_uploads', 'document_blobs', 'documents', 'document_quota_usage', 'idempotency_records', 'events']) {
      await client.query(`DELETE FROM ${table} WHERE company_id = $1`, [COMPANY]);
    }
    await client.query(
      `DELETE FROM history_entries h USING rental_insurances r WHERE h.rental_insurance_id = r.id AND r.company_id = $1 AND h.kind = 'documents_attached'`,
      [COMPANY],
    );
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** The agency's credential (a new one each run, as setup.ts makes the main agency's) and its guarantees' ids. */
export async function agency(url: string): Promise<{ basic: string }> {
  const db = createDatabaseClient(url, { poolMax: 1 });
  try {
    const credential = await createCredential(db, 'production', {
      companyId: COMPANY,
      displayName: 'Bench documents ERP',
      scopes: [...SCOPES],
      createdBy: 'bench',
    });
    return { basic: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}` };
  } finally {
    await db.$disconnect();
  }
}

export async function guaranteeIds(origin: string, auth: string, url: string): Promise<number[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const count = async () => Number((await client.query('SELECT count(*) AS n FROM rental_insurances WHERE company_id = $1', [COMPANY])).rows[0].n);
    const body = Buffer.from(
      JSON.stringify({
        tenant: { cpfCnpj: '52998224725', name: 'Maria José da Silva' },
        property: {
          externalId: 'IMV-DOCS',
          type: 'apartment',
          address: { zipCode: '01310-100', street: 'Avenida Paulista', number: '1578', neighborhood: 'Bela Vista', city: 'São Paulo', state: 'SP' },
        },
        rentalAmount: 3500,
      }),
    );
    for (let missing = GUARANTEES - (await count()); missing > 0; missing--) {
      const { status } = await send(
        origin,
        'POST',
        API,
        { Authorization: auth, 'Content-Type': 'application/json', 'Idempotency-Key': randomUUID() },
        body,
      );
      if (status !== 201) throw new Error(`documents bench: creating a guarantee answered ${status}`);
    }
    return (await client.query<{ id: string }>('SELECT id FROM rental_insurances WHERE company_id = $1 ORDER BY id', [COMPANY])).rows.map((row) =>
      Number(row.id),
    );
  } finally {
    await client.end();
  }
}
