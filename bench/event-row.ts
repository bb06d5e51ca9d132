/**
 * The event row's own cost on a create (part of events-cost.ts), measured with Prisma alone: a
 * create's last statement, built by the service's own functions (the history entry and the event
 * appended to a unit of work, which saveRecord finishes, as idempotent-write.ts does), run with and
 * without its event part, each in its transaction with its COMMIT (where the event's WAL is
 * flushed), by `concurrency` callers at once, interleaved over `pairs` pairs.
 *
 * Its inputs are those of a real create: a guarantee created through the running service by an
 * agency of its own (so the bench agency's quotas and data are untouched), whose stored response,
 * history entry and event are read back and written again and again under new keys and ids. Its
 * rows are deleted afterwards.
 */
import { randomUUID } from 'node:crypto';
import { createCredential } from '../src/auth/credentials';
import { SCOPES } from '../src/auth/scopes';
import { createDatabaseClient, type Database } from '../src/database/prisma-client';
import { UnitOfWork } from '../src/database/unit-of-work';
import { emitEvent, type NewEvent } from '../src/events/outbox';
import { recordHistory, type HistoryKind, type NewHistoryEntry } from '../src/guarantees/history';
import { saveRecord } from '../src/http/idempotency-store';
import { log } from './measure';
import type { Scenario } from './scenarios';
import { accessToken, type BenchDatabase } from './setup';

const COMPANY = 'bench-events-ab';

export interface StatementRun {
  variant: 'without its event' | 'with its event';
  pair: number;
  statementsPerSecond: number;
  meanMs: number;
  p50Ms: number;
  p99Ms: number;
}

interface CreateInputs {
  guaranteeId: bigint;
  outcome: { fingerprint: string; responseStatus: number; responseHeaders: Record<string, string>; responseBody: string | null };
  history: NewHistoryEntry;
  event: Omit<NewEvent, 'companyId'>;
}

/** One create through the service by the A/B's own agency, and what its last statement wrote. */
async function realCreate(db: Database, origin: string, create: Scenario): Promise<CreateInputs> {
  const credential = await createCredential(db, 'production', {
    companyId: COMPANY,
    companyName: 'Bench events A/B',
    displayName: `bench events A/B ${new Date().toISOString()}`,
    scopes: [...SCOPES],
    createdBy: 'bench',
  });
  const token = await accessToken(origin, `Basic ${Buffer.from(`${credential.clientId}:${credential.clientSecret}`).toString('base64')}`);
  const answer = await fetch(`${origin}${create.path}`, {
    method: 'POST',
    headers: { ...create.headers, Authorization: `Bearer ${token}`, 'Idempotency-Key': randomUUID() },
    body: create.body,
  });
  if (answer.status !== 201) throw new Error(`events A/B: the create answered ${answer.status}`);
  const guaranteeId = BigInt(((await answer.json()) as { id: number }).id);
  const record = await db.idempotencyRecord.findFirstOrThrow({ where: { companyId: COMPANY }, orderBy: { createdAt: 'desc' } });
  const entry = await db.historyEntry.findFirstOrThrow({ where: { rentalInsuranceId: guaranteeId } });
  const event = await db.event.findFirstOrThrow({ where: { companyId: COMPANY }, orderBy: { position: 'desc' } });
  return {
    guaranteeId,
    outcome: {
      fingerprint: record.fingerprint,
      responseStatus: record.responseStatus,
      responseHeaders: record.responseHeaders as Record<string, string>,
      responseBody: record.responseBody,
    },
    history: {
      rentalInsuranceId: guaranteeId,
      kind: entry.kind as HistoryKind,
      actor: { name: entry.creatorName, serviceAccount: entry.creatorServiceAccount },
      comment: entry.comment,
      previousStatus: entry.previousStatus,
      status: entry.status,
    },
    event: { type: event.type as NewEvent['type'], data: event.data },
  };
}

/** Runs `statement` from `concurrency` callers for `seconds`; its rate and latencies. */
async function load(statement: () => Promise<unknown>, seconds: number, concurrency: number) {
  const durations: number[] = [];
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < end) {
        const started = process.hrtime.bigint();
        await statement();
        durations.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  durations.sort((a, b) => a - b);
  const at = (p: number) => durations[Math.min(durations.length - 1, Math.floor(p * durations.length))] ?? NaN;
  const mean = durations.reduce((sum, ms) => sum + ms, 0) / durations.length;
  return { statementsPerSecond: durations.length / seconds, meanMs: mean, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export async function measureEventRow(
  bench: BenchDatabase,
  origin: string,
  create: Scenario,
  options: { seconds: number; concurrency: number; pairs: number },
): Promise<StatementRun[]> {
  const db = createDatabaseClient(bench.url, { poolMax: options.concurrency });
  try {
    const inputs = await realCreate(db, origin, create);
    const lastStatement = (withEvent: boolean) => () =>
      db.$transaction(async (tx) => {
        const unit = UnitOfWork.of(tx);
        recordHistory(unit, inputs.history);
        if (withEvent) emitEvent(unit, { companyId: COMPANY, ...inputs.event });
        await saveRecord(unit, COMPANY, randomUUID(), inputs.outcome);
      });
    // Warm-up (connections, Prisma's compiled queries), not reported.
    await load(lastStatement(false), 1, options.concurrency);
    await load(lastStatement(true), 1, options.concurrency);
    const runs: StatementRun[] = [];
    for (let pair = 1; pair <= options.pairs; pair++) {
      for (const variant of ['without its event', 'with its event'] as const) {
        log(`events A/B: a create's last statement ${variant} (pair ${pair}, ${options.concurrency} callers)`);
        runs.push({ variant, pair, ...(await load(lastStatement(variant === 'with its event'), options.seconds, options.concurrency)) });
      }
    }
    await db.$executeRaw`DELETE FROM history_entries WHERE rental_insurance_id = ${inputs.guaranteeId}`;
    await db.$executeRaw`DELETE FROM events WHERE company_id = ${COMPANY}`;
    await db.$executeRaw`DELETE FROM idempotency_records WHERE company_id = ${COMPANY}`;
    return runs;
  } finally {
    await db.$disconnect();
  }
}
