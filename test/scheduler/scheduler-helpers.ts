/** Helpers of the scheduler and sandbox tests. */
import { Writable } from 'node:stream';
import pino from 'pino';
import type { Logger } from '../../src/logger';
import { runSchedulerOnce, type RunSummary } from '../../src/scheduler/scheduler';
import { scheduledJobs } from '../../src/sandbox/lifecycle-jobs';
import { backOffice, standardTerms } from '../support/back-office';
import { asPartner } from '../support/partner-api';
import type { Agency, TestApp } from '../support/test-app';

export const DAY_MS = 86_400_000;

/** Sum of the guarantees changed per job in a run. */
export const processed = (summary: RunSummary, job: string) => summary[job]?.processed ?? 0;

export const totalProcessed = (summary: RunSummary) => Object.values(summary).reduce((sum, result) => sum + result.processed, 0);

/** Runs the scheduler until a run changes nothing (at most `limit` runs); returns the number of runs that changed something. */
export async function settle(t: TestApp, now?: () => Date, limit = 10): Promise<number> {
  for (let run = 0; run < limit; run += 1) {
    const summary = await runSchedulerOnce(t.db, t.config, scheduledJobs(t.config), now ? now() : new Date());
    if (totalProcessed(summary) === 0) return run;
  }
  throw new Error(`the scheduler still changed guarantees after ${limit} runs`);
}

/** An active guarantee, through the partner API and the back office (terms may set terminationDate). */
export async function activeGuarantee(t: TestApp, agency: Agency, terms = standardTerms) {
  const office = backOffice(t);
  const partner = asPartner(t, agency);
  const created = await partner.newGuarantee();
  await office.approve(created.id, terms);
  const accepted = await partner.accept(created.id);
  if (accepted.status !== 200) throw new Error(`accept failed: ${accepted.status}`);
  await office.envelopeReady(created.id);
  await office.sign(created.id, 'document');
  await office.sign(created.id, 'tenant', created.tenant.cpfCnpj);
  return created;
}

/** A pino logger whose JSON lines are kept in `lines`. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}
