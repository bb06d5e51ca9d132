/**
 * Steps of the journey and the runner: each step runs in order, unless a step it needs did not
 * pass (then it is skipped, naming that step); an exception ends the step with that problem.
 */
import { randomUUID } from 'node:crypto';
import { field, type Exchange, type Session, type StepRecord } from './session.js';

export interface JourneyState {
  /** Unique per run: property references and idempotency keys carry it, so runs never collide. */
  runId: string;
  grantedScopes: string[];
  sandboxTimeoutMs: number;
  pollIntervalMs: number;
  /** The guarantee the sandbox approves (rentalAmount 3500.00) and its latest ETag. */
  guarantee?: { id: number; etag: string };
  /** The guarantee the sandbox declines (rentalAmount 3500.01). */
  declinedId?: number;
  activated?: boolean;
}

export interface Step {
  name: string;
  needs?: string[];
  /** A reason to skip the step (for example a scope the credential lacks), or undefined to run it. */
  skipIf?: (state: JourneyState) => string | undefined;
  run: (session: Session, state: JourneyState) => Promise<void>;
}

export async function runSteps(steps: Step[], session: Session, state: JourneyState, onStep: (record: StepRecord) => void): Promise<StepRecord[]> {
  const records: StepRecord[] = [];
  for (const step of steps) {
    const record = session.begin(step.name);
    const started = Date.now();
    const blocked = (step.needs ?? []).find((name) => records.find((done) => done.name === name)?.outcome !== 'passed');
    const skip = blocked ? `needs "${blocked}", which did not pass` : step.skipIf?.(state);
    if (skip) {
      record.outcome = 'skipped';
      record.note = skip;
    } else {
      try {
        await step.run(session, state);
      } catch (error) {
        session.problem(`the step stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
      record.outcome = record.problems.length > 0 ? 'failed' : 'passed';
    }
    record.durationMs = Date.now() - started;
    records.push(record);
    onStep(record);
  }
  return records;
}

/** The ETag of a guarantee answer (W/"<n>"), or a step problem. */
export function etagOf(session: Session, exchange: Exchange): string {
  const etag = exchange.headers.get('etag');
  session.check(etag && /^W\/"\d+"$/.test(etag), `${exchange.method} ${exchange.path}: expected an ETag W/"<version>", got ${etag}`);
  return etag ?? 'W/"0"';
}

export const versionOf = (etag: string) => Number(/"(\d+)"/.exec(etag)?.[1] ?? NaN);

export const header = (exchange: Exchange, name: string) => exchange.headers.get(name) ?? undefined;

export const effectsOf = (exchange: Exchange) =>
  (header(exchange, 'service-effects') ?? '')
    .split(',')
    .map((token) => token.trim())
    .filter((token) => token && token !== 'none');

/**
 * A write with If-Match that re-reads and retries once on 412: in the sandbox the reviewer may
 * change the guarantee between our read and our write, and re-reading is what a partner must do.
 */
export async function preconditionedWrite(
  session: Session,
  state: JourneyState,
  send: (etag: string, idempotencyKey: string) => Promise<Exchange>,
): Promise<Exchange> {
  const guarantee = state.guarantee!;
  let answer = await send(guarantee.etag, `${state.runId}-${randomUUID()}`);
  if (answer.status === 412) {
    const fresh = await session.call('GET', `/v1/rental-insurances/${guarantee.id}`, { expect: [200] });
    guarantee.etag = etagOf(session, fresh);
    answer = await send(guarantee.etag, `${state.runId}-${randomUUID()}`);
  }
  if (answer.status >= 200 && answer.status < 300) guarantee.etag = etagOf(session, answer);
  return answer;
}

/** Polls a guarantee with If-None-Match until `until` holds or the sandbox timeout passes. */
export async function pollGuarantee(session: Session, state: JourneyState, id: number, until: (status: string) => boolean): Promise<Exchange> {
  const deadline = Date.now() + state.sandboxTimeoutMs;
  let latest = await session.call('GET', `/v1/rental-insurances/${id}`, { expect: [200] });
  while (!until(String(field(latest.json, 'status')))) {
    if (Date.now() > deadline) throw new Error(`guarantee ${id} still ${String(field(latest.json, 'status'))} after ${state.sandboxTimeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, state.pollIntervalMs));
    const etag = latest.headers.get('etag');
    const next = await session.call('GET', `/v1/rental-insurances/${id}`, { headers: etag ? { 'If-None-Match': etag } : {}, expect: [200, 304] });
    if (next.status === 200) latest = next;
  }
  return latest;
}
