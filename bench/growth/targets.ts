/**
 * What the growth bench measures against: the 1,000,000-guarantee single agency of `make bench`
 * (its database in .data/bench-postgres, seeded by bench/seed.ts when missing) and, in the growth
 * dataset, the largest agency and the median one. Each dataset gets a credential per agency and its
 * own service; each agency a sample guarantee with no co-tenants and as near five history entries as
 * it has (the 1M sample has five), its sample's CPF and its ledger's newest 31 days.
 */
import { Client } from 'pg';
import { createCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { createDatabaseClient } from '../../src/database/prisma-client';
import { BENCH_COMPANY } from '../seed';
import { prepareBench } from '../setup';
import { medianRank } from './agency-sizes';
import { GROWTH_DIR, startGrowthDatabase } from './growth-database';
import { seedGrowth, type GrowthSeedFacts } from './seed-growth';

export interface Agency {
  /** How the report names it: `1M, one agency`, `largest (299,982)`, `median (427)`. */
  label: string;
  companyId: string;
  guarantees: number;
  /** HTTP Basic credentials of a production credential of the agency, for the token endpoint. */
  basic: string;
  sample: { id: number; cpf: string; historyEntries: number };
  month: { start: string; end: string };
}

export interface Dataset {
  name: '1M' | 'growth';
  url: string;
  agencies: Agency[];
  /** Removes what the bench's creates left in a kept dataset (nothing for the 1M one: `make bench` keeps them too). */
  forgetBenchWrites(): Promise<void>;
  stop(): Promise<void>;
}

const rankLabel = (count: number) => count.toLocaleString('en-US');

export async function openOneMillion(onLog?: (text: string) => void): Promise<Dataset> {
  const bench = await prepareBench(onLog);
  const rows = await query<{ guarantees: string; history: string; newest: string }>(
    bench.url,
    `SELECT (SELECT count(*) FROM rental_insurances WHERE company_id = $1)::text AS guarantees,
            (SELECT count(*) FROM history_entries WHERE rental_insurance_id = $2)::text AS history,
            (SELECT max(date) FROM statement_entries WHERE company_id = $1)::text AS newest`,
    [BENCH_COMPANY, bench.sample.id],
  );
  const { guarantees, history, newest } = rows[0]!;
  return {
    name: '1M',
    url: bench.url,
    agencies: [
      {
        label: '1M, one agency',
        companyId: BENCH_COMPANY,
        guarantees: Number(guarantees),
        basic: bench.basic,
        sample: { ...bench.sample, historyEntries: Number(history) },
        month: monthEndingOn(newest),
      },
    ],
    forgetBenchWrites: async () => undefined,
    stop: bench.stop,
  };
}

export async function openGrowth(log: (line: string) => void, onLog?: (text: string) => void): Promise<Dataset> {
  const database = await startGrowthDatabase(onLog);
  try {
    const facts = await seedGrowth(database.url, GROWTH_DIR, log);
    const agencies: Agency[] = [];
    for (const [rank, role] of [
      [1, 'largest'],
      [medianRank(), 'median'],
    ] as const) {
      agencies.push(await growthAgency(database.url, facts, rank, role));
    }
    const companies = agencies.map((agency) => agency.companyId);
    const forgetBenchWrites = () => forgetGrowthBenchWrites(database.url, facts.lastSeededId, companies);
    await forgetBenchWrites();
    return { name: 'growth', url: database.url, agencies, forgetBenchWrites, stop: database.stop };
  } catch (error) {
    await database.stop();
    throw error;
  }
}

async function growthAgency(url: string, facts: GrowthSeedFacts, rank: number, role: string): Promise<Agency> {
  const [agency] = await query<{ company_id: string; guarantees: number }>(
    url,
    'SELECT company_id, guarantees FROM growth_seed.agencies WHERE rank = $1',
    [rank],
  );
  const { company_id: companyId, guarantees } = agency!;
  // Its seeded guarantees' history is a function of status, co-tenants and id (seed-schema.ts): no count needed to choose.
  const [sample] = await query<{ id: string; cpf: string }>(
    url,
    `SELECT id::text, tenant_cpf_cnpj AS cpf FROM rental_insurances
     WHERE company_id = $1 AND id <= $2 AND growth_seed.co_tenants(id) = 0
     ORDER BY abs(growth_seed.lifecycle_entries(status, 0) + growth_seed.comments(id) - 5), id DESC LIMIT 1`,
    [companyId, facts.lastSeededId.toString()],
  );
  const [history] = await query<{ n: number }>(url, 'SELECT count(*)::int AS n FROM history_entries WHERE rental_insurance_id = $1', [sample!.id]);
  const db = createDatabaseClient(url, { poolMax: 1 });
  try {
    const credential = await createCredential(db, 'production', {
      companyId,
      displayName: `Growth bench ERP ${rank}`,
      scopes: [...SCOPES],
      createdBy: 'bench',
    });
    return {
      label: `${role} (${rankLabel(guarantees)})`,
      companyId,
      guarantees,
      basic: `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`,
      sample: { id: Number(sample!.id), cpf: sample!.cpf, historyEntries: history!.n },
      month: monthEndingOn(facts.anchor.slice(0, 10)),
    };
  } finally {
    await db.$disconnect();
  }
}

/**
 * The kept dataset stays as seeded: guarantees above the last seeded id (the bench's creates, with
 * their co-tenants, history and signatures by cascade; the status-count trigger follows), and the
 * bench agencies' stored answers, events and request log lines.
 */
async function forgetGrowthBenchWrites(url: string, lastSeededId: bigint, companies: string[]): Promise<void> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('DELETE FROM rental_insurances WHERE id > $1', [lastSeededId.toString()]);
    for (const table of ['idempotency_records', 'idempotency_usage', 'events', 'request_log']) {
      await client.query(`DELETE FROM ${table} WHERE company_id = ANY ($1::text[])`, [companies]);
    }
  } finally {
    await client.end();
  }
}

/** The 31 days ending on `end` (YYYY-MM-DD). */
function monthEndingOn(end: string): { start: string; end: string } {
  return { start: new Date(Date.parse(`${end}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10), end };
}

async function query<Row extends object>(url: string, text: string, values: unknown[]): Promise<Row[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end();
  }
}
