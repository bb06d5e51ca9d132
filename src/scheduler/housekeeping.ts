/**
 * Periodic clean-up that is safe to run in every service process at once (plain deletes of
 * expired rows): stored idempotent responses past their retention, expired access tokens,
 * events (with their webhook deliveries and attempts) older than EVENT_RETENTION_DAYS, and
 * credential secrets revoked more than REVOKED_SECRET_RETENTION_DAYS ago; and documents' stale
 * staged bytes and archived guarantees' documents past DOCUMENT_RETENTION_DAYS (document-housekeeping.ts).
 */
import type { Config } from '../config';
import { databaseFailed } from '../database/outage-log';
import type { Database } from '../database/prisma-client';
import type { Logger } from '../logger';
import { REVOKED_SECRET_RETENTION_DAYS } from '../auth/credential-administration';
import { documentStores } from '../documents/document-store';
import { purgeArchivedDocuments, purgeStaleUploads } from '../documents/document-housekeeping';

const EVERY_MS = 10 * 60 * 1000;
/** How long events, their deliveries and attempts are kept (documented in partner.yaml). */
export const EVENT_RETENTION_DAYS = 30;

export async function purgeExpired(
  db: Database,
  retentionHours: number,
  now = new Date(),
): Promise<{ idempotency: number; tokens: number; events: number; secrets: number }> {
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
  return { idempotency: idempotency.count, tokens: tokens.count, events: events.count, secrets: secrets.count };
}

export function startHousekeeping(db: Database, config: Config, logger: Logger): { stop(): void } {
  const stores = documentStores(db, config.DOCUMENT_STORE_URL);
  const run = () =>
    purgeExpired(db, config.IDEMPOTENCY_RETENTION_HOURS)
      .then(async (purged) => ({
        ...purged,
        staleUploads: await purgeStaleUploads(db, stores),
        archivedDocuments: await purgeArchivedDocuments(db, stores, config.DOCUMENT_RETENTION_DAYS),
      }))
      .then((purged) => logger.debug({ purged }, 'housekeeping done'))
      .catch((error: unknown) => {
        if (!databaseFailed(error)) logger.warn({ err: error }, 'housekeeping failed; will retry');
      });
  const timer = setInterval(run, EVERY_MS);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
