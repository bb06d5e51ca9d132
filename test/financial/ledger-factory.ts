/** Seeds statement entries through the real posting service, inside one transaction. */
import type { Database } from '../../src/database/prisma-client';
import { UnitOfWork } from '../../src/database/unit-of-work';
import type { StatementType } from '../../src/generated/prisma/client';
import { postStatementEntry, type NewStatementEntry, type StatementEntryRow } from '../../src/financial/ledger-service';
import { addDays } from '../../src/financial/date-range';
import { todayInSaoPaulo } from '../../src/database/column-values';

export type EntrySeed = Omit<NewStatementEntry, 'companyId' | 'description'> & { description?: string | null };

export function postEntries(db: Database, companyId: string, entries: EntrySeed[]): Promise<StatementEntryRow[]> {
  return db.$transaction(
    async (tx) => {
      const unit = UnitOfWork.of(tx);
      const rows: StatementEntryRow[] = [];
      for (const entry of entries) {
        rows.push(await postStatementEntry(unit, { description: null, ...entry, companyId }));
      }
      await unit.flush();
      return rows;
    },
    { timeout: 60_000 },
  );
}

export const entry = (date: string, type: StatementType, amountCents: bigint, description: string | null = null): EntrySeed => ({
  date,
  type,
  amountCents,
  description,
});

/** Today in America/Sao_Paulo shifted by `days`. */
export const daysFromToday = (days: number): string => addDays(todayInSaoPaulo(), days);

/** A cents amount as the JSON number the API answers with. */
export const money = (cents: bigint): number => Number((Number(cents) / 100).toFixed(2));

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be reproduced. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
