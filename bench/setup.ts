/**
 * What every benchmark run needs before it measures: the seeded, migrated database, a production
 * credential of the seeded agency, the sample guarantee, and the inputs of the scenarios.
 */
import { createCredential, type CreatedCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { todayInSaoPaulo } from '../src/database/column-values';
import { migrateDatabase } from '../src/database/migrate';
import { createDatabaseClient, type Database } from '../src/database/prisma-client';
import { removeBenchEndpoints } from './bench-endpoints';
import { log } from './measure';
import { database, redact } from './processes';
import type { ScenarioInputs } from './scenarios';
import { BENCH_COMPANY, seed } from './seed';

export const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);

export interface BenchDatabase {
  url: string;
  stop(): Promise<void>;
  credential: CreatedCredential;
  basic: string;
  sample: { id: number; cpf: string };
}

export async function prepareBench(onDatabaseLog?: (text: string) => void): Promise<BenchDatabase> {
  const { url, stop } = await database(onDatabaseLog);
  log(`migrating ${redact(url)}`);
  await migrateDatabase(url);
  await seed(url, ROWS, log);
  const db = createDatabaseClient(url, { poolMax: 2 });
  try {
    // The service runs as production (no sandbox reviewer touching the data), so the credential must be one too.
    const credential = await createCredential(db, 'production', {
      companyId: BENCH_COMPANY,
      displayName: 'Bench ERP',
      scopes: [...SCOPES],
      createdBy: 'bench',
    });
    // Found by its CPF, which no scenario changes (the patch scenario rewrites external ids).
    const cpf = String(Math.floor(ROWS / 2)).padStart(11, '0');
    const sample = await db.rentalInsurance.findFirstOrThrow({ where: { companyId: BENCH_COMPANY, tenantCpfCnpj: cpf } });
    await giveHistory(db, sample.id);
    const leftovers = await removeBenchEndpoints(db);
    if (leftovers > 0) log(`removed ${leftovers} webhook endpoints that an interrupted events A/B left subscribed`);
    const basic = `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`;
    return { url, stop, credential, basic, sample: { id: Number(sample.id), cpf: sample.tenantCpfCnpj } };
  } finally {
    await db.$disconnect();
  }
}

/** Entries of the sample's history: the history scenario reads a page of them (none are seeded otherwise). */
const SAMPLE_HISTORY_ENTRIES = 5;

/**
 * Gives the sample guarantee its history of SAMPLE_HISTORY_ENTRIES entries, the same in every run:
 * the seed writes none, and a history that grew with whatever write landed on the sample made the
 * history scenario measure an empty page in one run and a full one in the next (a count and no
 * rows against two more statements). No writing scenario touches the sample (scenarios.ts).
 */
async function giveHistory(db: Database, guaranteeId: bigint): Promise<void> {
  const entries = await db.historyEntry.count({ where: { rentalInsuranceId: guaranteeId } });
  if (entries === SAMPLE_HISTORY_ENTRIES) return;
  await db.historyEntry.deleteMany({ where: { rentalInsuranceId: guaranteeId } });
  await db.historyEntry.createMany({
    data: Array.from({ length: SAMPLE_HISTORY_ENTRIES }, (_, index) => ({
      rentalInsuranceId: guaranteeId,
      kind: 'comment',
      creatorName: 'Bench ERP',
      creatorServiceAccount: true,
      comment: `Benchmark history entry ${index + 1}.`,
      status: 'under_review' as const,
      previousStatus: 'under_review' as const,
    })),
  });
}

/**
 * Puts the proposals that earlier accept and refuse runs decided back to approved, without their
 * signature records: each run starts at a random approved guarantee and acts once on each, so
 * without this a run would partly answer 409 to guarantees decided by the runs before it.
 */
export async function restoreDecidedProposals(url: string): Promise<void> {
  const db = createDatabaseClient(url, { poolMax: 1 });
  try {
    await db.$transaction([
      db.$executeRaw`
        DELETE FROM signatures s USING rental_insurances r
        WHERE s.rental_insurance_id = r.id AND r.company_id = ${BENCH_COMPANY} AND r.id % 10 = 2 AND r.status IN ('accepted', 'declined_by_tenant')`,
      db.$executeRaw`
        UPDATE rental_insurances SET status = 'approved'
        WHERE company_id = ${BENCH_COMPANY} AND id % 10 = 2 AND status IN ('accepted', 'declined_by_tenant')`,
    ]);
  } finally {
    await db.$disconnect();
  }
}

export async function accessToken(origin: string, basic: string): Promise<string> {
  const response = await fetch(`${origin}/auth/oauth2/token`, {
    method: 'POST',
    headers: { Authorization: basic, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=client_credentials',
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

export function scenarioInputs(bench: BenchDatabase, token: string): ScenarioInputs {
  const today = todayInSaoPaulo();
  const monthAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
  return {
    api: '/rental-guarantee',
    auth: `Bearer ${token}`,
    token,
    basic: bench.basic,
    sampleId: bench.sample.id,
    sampleCpf: bench.sample.cpf,
    totalRows: ROWS,
    today,
    monthAgo,
  };
}

/** `BENCH_ONLY=get,list`: only the scenarios whose name contains one of the words. */
export function selected(name: string): boolean {
  const only = (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((word) => word.trim())
    .filter(Boolean);
  return only.length === 0 || only.some((word) => name.includes(word));
}
