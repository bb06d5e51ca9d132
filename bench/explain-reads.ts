/**
 * `make bench-explain`: the query plans of the financial reads on the bench's database (seeded as
 * `make bench` seeds it: BENCH_ROWS guarantees and statement entries of one agency), as
 * `EXPLAIN (ANALYZE, BUFFERS)` of the very statements the service sends. The statements are the
 * ledger's own (financial/ledger-service.ts), caught from Prisma's query log, then explained with
 * their parameters on a connection of their own, twice: the second, warm run is printed. Plans and
 * buffers say more than milliseconds on a shared machine. Prints markdown for bench/results.md.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import { Client } from 'pg';
import { todayInSaoPaulo } from '../src/database/column-values';
import { getBalance, listDailySummaries, listStatementEntries } from '../src/financial/ledger-service';
import { PrismaClient } from '../src/generated/prisma/client';
import { log } from './measure';
import { database, redact } from './processes';
import { migrateDatabase } from '../src/database/migrate';
import { BENCH_COMPANY, seed } from './seed';
import { ROWS } from './setup';

interface Caught {
  query: string;
  params: unknown[];
}

/** The reads explained: what the bench's financial scenarios ask (scenarios.ts), 31 days ending today. */
function reads(today: string, monthAgo: string): Array<{ name: string; run: (db: PrismaClient) => Promise<unknown> }> {
  return [
    {
      name: 'statement entries, 31 days, page 0',
      run: (db) => listStatementEntries(db, BENCH_COMPANY, { startDate: monthAgo, endDate: today }, { offset: 0, size: 20 }),
    },
    {
      name: 'statement entries, 31 days, type=fee, page 0',
      run: (db) => listStatementEntries(db, BENCH_COMPANY, { startDate: monthAgo, endDate: today, types: ['fee'] }, { offset: 0, size: 20 }),
    },
    { name: 'daily summaries, 31 days', run: (db) => listDailySummaries(db, BENCH_COMPANY, { startDate: monthAgo, endDate: today }, today) },
    { name: 'balance', run: (db) => getBalance(db, BENCH_COMPANY, today) },
  ];
}

async function main(): Promise<void> {
  const { url, stop } = await database();
  try {
    log(`migrating ${redact(url)}`);
    await migrateDatabase(url);
    await seed(url, ROWS, log);
    const caught: Caught[] = [];
    const db = new PrismaClient({ adapter: new PrismaPg({ connectionString: url, max: 2 }), log: [{ emit: 'event', level: 'query' }] });
    db.$on('query', (event) => caught.push({ query: event.query, params: JSON.parse(event.params) as unknown[] }));
    const explainer = new Client({ connectionString: url });
    await explainer.connect();
    const today = todayInSaoPaulo();
    const monthAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 30 * 86_400_000).toISOString().slice(0, 10);
    const lines = [
      `Explained on ${new Date().toISOString().slice(0, 10)} over ${ROWS} statement entries of one agency (\`make bench-explain\`).`,
      '',
    ];
    try {
      for (const read of reads(today, monthAgo)) {
        caught.length = 0;
        await read.run(db);
        lines.push(`#### ${read.name}`, '');
        for (const { query, params } of [...caught]) {
          const explain = `EXPLAIN (ANALYZE, BUFFERS) ${query}`;
          await explainer.query(explain, params);
          const plan = (await explainer.query<{ 'QUERY PLAN': string }>(explain, params)).rows.map((row) => row['QUERY PLAN']);
          lines.push('```', query.replace(/\s+/g, ' ').trim(), `-- parameters: ${JSON.stringify(params)}`, ...plan, '```', '');
        }
      }
    } finally {
      await explainer.end();
      await db.$disconnect();
    }
    console.log(lines.join('\n'));
  } finally {
    await stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
