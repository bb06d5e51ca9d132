/**
 * A lost and a regained database are logged once per process each, with the cause in the driver's
 * words (`connect ECONNREFUSED 127.0.0.1:5432`, `terminating connection due to administrator
 * command`) rather than Prisma's multi-line "Invalid `prisma.$queryRaw()` invocation" text. Without
 * it, a few seconds of outage wrote a line per failed request, scheduler run, queue poll and
 * listener retry. Whoever meets a failure hands it here first: an outage's failures are then
 * counted (the `database regained` line says how many and how long) and not logged again; while
 * one lasts, a probe every half second tells when it ends.
 */
import type { Logger } from '../logger';
import { isDatabaseUnavailable, waitedForConnection } from './unavailable';

let logger: Logger | undefined;
let probe: (() => Promise<unknown>) | undefined;
let lostAt: number | undefined;
let failures = 0;
let probing: NodeJS.Timeout | undefined;

const PROBE_EVERY_MS = 500;

/**
 * Where this process's outage lines go, and the statement that proves the database back (a
 * `SELECT 1` through the requests' own client). A new connection proves nothing behind a pooler,
 * which accepts clients while the database is down; so an outage ends only when the probe answers.
 */
export function logDatabaseOutagesTo(target: Logger | undefined, check?: () => Promise<unknown>): void {
  logger = target;
  probe = check;
}

/**
 * Whether `error` means the database cannot answer. If so, the first one of an outage is logged
 * (`database lost`), the probe starts, and the caller writes no line of its own.
 */
export function databaseFailed(error: unknown): boolean {
  // No free pooled connection in time is this process's load, not an outage: logged as before.
  if (!isDatabaseUnavailable(error) || waitedForConnection(error)) return false;
  failures += 1;
  if (lostAt === undefined) {
    lostAt = Date.now();
    logger?.error({ cause: driverMessage(error) }, 'database lost: answering 503 until it is back');
    probeLater();
  }
  return true;
}

function probeLater(): void {
  if (!probe || probing) return;
  probing = setTimeout(() => {
    void probe!().then(
      () => {
        probing = undefined;
        databaseAnswered();
      },
      () => {
        probing = undefined;
        if (lostAt !== undefined) probeLater();
      },
    );
  }, PROBE_EVERY_MS);
  probing.unref();
}

/** The probe answered: ends the outage, if one was logged. */
function databaseAnswered(): void {
  if (lostAt === undefined) return;
  logger?.warn({ downMs: Date.now() - lostAt, failures }, 'database regained');
  lostAt = undefined;
  failures = 0;
}

/**
 * The driver's own words, on one line: pg's message where Prisma kept it (its adapter's
 * `originalMessage`), else the deepest message of the cause chain, of which a Prisma error's
 * multi-line text gives only its `Message: \`…\`` part.
 */
export function driverMessage(error: unknown): string {
  let deepest = '';
  for (let current = error, depth = 0; current && depth < 6; current = (current as { cause?: unknown }).cause, depth++) {
    const fields = current as {
      message?: unknown;
      originalMessage?: unknown;
      meta?: { driverAdapterError?: { cause?: { originalMessage?: unknown } } };
    };
    const original = fields.meta?.driverAdapterError?.cause?.originalMessage ?? fields.originalMessage;
    if (typeof original === 'string' && original !== '') return original;
    if (typeof fields.message === 'string' && fields.message.trim() !== '') deepest = fields.message;
  }
  const quoted = /Message: `([^`]+)`/.exec(deepest);
  if (quoted) return quoted[1]!;
  return (
    deepest
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .at(-1) ?? 'unknown'
  );
}
