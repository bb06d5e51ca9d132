/**
 * The back office's audit log (issue #5): who did what to credentials (and to the ledger), and when,
 * and which staff member read an agency's credentials or request log (issue 34 item 7). Entries are
 * only appended, inside the transaction of the action they record (a read's, after it).
 */
import type { Prisma } from '../generated/prisma/client';
import type { Queryable } from '../database/prisma-client';
import { cutText } from '../validation/bounded-text';

/** Who acts: a staff member, an agency director, or a named process (`quick-start`, `test`). */
export interface AuditActor {
  /** Stored in `actor`: `staff:<name>`, `director:<name>` or a process name. */
  label: string;
  /** How the action arrived: the back-office API (a token), the console (issue 37: a person's session), the admin command-line tool, ... */
  via: 'back-office-api' | 'console' | 'cli' | 'service';
  /** The client id of the credential whose token made the request (back-office API only; `console:<person id>` for a session). */
  clientId?: string;
}

export const staffActor = (name: string, via: AuditActor['via'], clientId?: string): AuditActor => ({ label: `staff:${name}`, via, clientId });
export const directorActor = (name: string, via: AuditActor['via'], clientId?: string): AuditActor => ({ label: `director:${name}`, via, clientId });

export type AuditAction =
  | 'credential.created'
  | 'credential.secret_issued'
  | 'credential.secret_revoked'
  | 'credential.revoked'
  | 'statement_entry.posted'
  | 'webhook_endpoint.disabled'
  // Issue 37: the console's people and their refusals where they concern credentials.
  | 'console.person_invited'
  | 'console.person_reinvited'
  | 'credential.access_refused'
  // Issue 34 item 7: staff reading what an agency did or holds leave a trace too.
  | 'credentials.read'
  | 'request_log.read';

export interface NewAuditEntry {
  actor: AuditActor;
  action: AuditAction;
  companyId?: string | null;
  credentialId?: string | null;
  details?: Record<string, unknown>;
}

/**
 * The bounds of an entry's details as the back-office contract declares them (AuditLogEntry): a
 * text value at most 200 characters (`url` 2048), a list at most 10 codes. Details quote what
 * people chose (a display name, a webhook URL): each is cut here, once for every action.
 */
const DETAIL_TEXT_CHARS = 200;
const DETAIL_URL_CHARS = 2048;
const DETAIL_LIST_ITEMS = 10;

function boundedDetail(name: string, value: unknown): unknown {
  if (typeof value === 'string') return cutText(value, name === 'url' ? DETAIL_URL_CHARS : DETAIL_TEXT_CHARS);
  if (Array.isArray(value)) return value.slice(0, DETAIL_LIST_ITEMS);
  return value;
}

export function recordAudit(db: Queryable, entry: NewAuditEntry) {
  const details: Record<string, unknown> = { via: entry.actor.via };
  for (const [name, value] of Object.entries(entry.details ?? {})) details[name] = boundedDetail(name, value);
  if (entry.actor.clientId) details['actorClientId'] = entry.actor.clientId;
  return db.auditLogEntry.create({
    data: {
      actor: entry.actor.label,
      action: entry.action,
      companyId: entry.companyId ?? null,
      credentialId: entry.credentialId ?? null,
      details: details as Prisma.InputJsonValue,
    },
  });
}

export interface AuditLogFilter {
  companyId?: string;
  credentialId?: string;
  action?: string;
}

export type AuditLogRow = Awaited<ReturnType<typeof recordAudit>>;

/** Newest first (createdAt, then id). */
export async function listAuditLog(
  db: Queryable,
  filter: AuditLogFilter,
  page: { offset: number; size: number },
): Promise<{ rows: AuditLogRow[]; total: number }> {
  const where: Prisma.AuditLogEntryWhereInput = {};
  if (filter.companyId !== undefined) where.companyId = filter.companyId;
  if (filter.credentialId !== undefined) where.credentialId = filter.credentialId;
  if (filter.action !== undefined) where.action = filter.action;
  const total = await db.auditLogEntry.count({ where });
  if (page.offset >= total) return { rows: [], total };
  const rows = await db.auditLogEntry.findMany({
    where,
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    skip: page.offset,
    take: page.size,
  });
  return { rows, total };
}
