/**
 * Periodic clean-up that is safe to run in every service process at once (plain deletes of
 * expired rows): stored idempotent responses past their retention, expired access tokens,
 * events (with their webhook deliveries and attempts) older than EVENT_RETENTION_DAYS, and
 * credential secrets revoked more than REVOKED_SECRET_RETENTION_DAYS ago, the scheduler's
 * records of failed steps whose retry time is more than a day past; and documents' stale staged
 * bytes and archived guarantees' documents past DOCUMENT_RETENTION_DAYS (document-housekeeping.ts).
 */
import type { Config } from '../config';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import type { Logger } from '../logger';
import { REVOKED_SECRET_RETENTION_DAYS } from '../auth/credential-administration';
import { inRootSpan } from '../tracing/tracing';
import { TOKEN_HOURS_KEPT_HOURS } from '../auth/secret-use';
import { purgeConsole } from '../people/console-housekeeping';
import { purgeStaleFailures } from './step-failures';
import { documentStores } from '../guarantees/documents/document-store';
import { purgeArchivedDocuments, purgeStaleUploads } from '../guarantees/documents/document-housekeeping';

const EVERY_MS = 10 * 60 * 1000;
/** How long events, their deliveries and attempts are kept (documented in partner.yaml). */
export const EVENT_RETENTION_DAYS = 30;

export async function purgeExpired(
  db: Database,
  retentionHours: number,
  now = new Date(),
): Promise<{ idempotency: number; tokens: number; events: number; secrets: number; stepFailures: number }> {
  const idempotency = await db.idempotencyRecord.deleteMany({
    where: { createdAt: { lt: new Date(now.getTime() - retentionHours * 3_600_000) } },
  });
  const tokens = await db.accessToken.deleteMany({ where: { expiresAt: { lt: now } } });
  await db.idempotencyUsage.deleteMany({ where: { hour: { lt: new Date(now.getTime() - (retentionHours + 1) * 3_600_000) } } });
  const events = await db.event.deleteMany({ where: { occurredAt: { lt: new Date(now.getTime() - EVENT_RETENTION_DAYS * 86_400_000) } } });
  // Revoking a secret deleted its tokens; one that is somehow still referenced waits for them to expire.
  const secrets = await db.credentialSecret.deleteMany({
    where: { revokedAt: { lt: new Date(now.getTime() - REVOKED_SECRET_RETENTION_DAYS * 86_400_000) }, tokens: { none: {} } },
  });
  // Issue 37: tokens per hour of each secret (last use), and the console's ended sessions, used or
  // expired challenges and invitations expired a week ago.
  await db.secretTokenHour.deleteMany({ where: { hour: { lt: new Date(now.getTime() - TOKEN_HOURS_KEPT_HOURS * 3_600_000) } } });
  await purgeConsole(db, now);
  const stepFailures = await purgeStaleFailures(db, now);
  return { idempotency: idempotency.count, tokens: tokens.count, events: events.count, secrets: secrets.count, stepFailures };
}

export function startHousekeeping(db: Database, config: Config, logger: Logger): { stop(): void } {
  const opened = documentStores(db, config.DOCUMENT_STORE_URL);
  const run = () =>
    inRootSpan('housekeeping.run', async () => {
      const purged = await purgeExpired(db, config.IDEMPOTENCY_RETENTION_HOURS);
      const stores = await opened;
      return {
        ...purged,
        staleUploads: await purgeStaleUploads(db, stores),
        archivedDocuments: await purgeArchivedDocuments(db, stores, config.DOCUMENT_RETENTION_DAYS),
      };
    })
      .then((purged) => logger.debug({ purged }, 'housekeeping done'))
      .catch((error: unknown) => {
        if (!databaseFailed(error)) logger.warn({ err: error }, 'housekeeping failed; will retry');
      });
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
