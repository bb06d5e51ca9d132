/**
 * The console's sessions (issue 37), server-side in PostgreSQL so that every process and host sees
 * the same: a row per signed-in browser, keyed by the SHA-256 of the cookie's token. A session ends
 * `idleMinutes` after its last request, `maxHours` after sign-in, at sign-out, or when its person is
 * re-invited; each request reads the row, so an end holds everywhere from the next request on.
 */
import type { Queryable } from '../database/prisma-client';
import { type Environment, hashAccessToken, newSessionToken } from './opaque-secrets';
import type { CredentialKind } from './scopes';

export const SESSION_COOKIE = '__Host-rg-console';

export interface SessionTimes {
  idleMinutes: number;
  maxHours: number;
}

export interface LiveSession {
  tokenHash: string;
  personId: string;
  kind: CredentialKind;
  companyId: string;
  name: string;
  scopes: string[];
  expiresAt: Date;
  lastSeenAt: Date;
}

/** The last request is written at most this often (a session read on every request is not a write on every request). */
const TOUCH_EVERY_MS = 60_000;

export const hashSessionToken = hashAccessToken;

/** A new session of the person: the token goes into the cookie, only its hash into the database. */
export async function startSession(db: Queryable, environment: Environment, personId: string, times: SessionTimes, now = new Date()) {
  const token = newSessionToken(environment);
  const row = await db.consoleSession.create({
    data: {
      tokenHash: hashSessionToken(token),
      personId,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + times.maxHours * 3_600_000),
    },
  });
  return { token, row };
}

/** The live session of the token's hash with its person, or undefined (unknown, idle too long, too old). */
export async function findLiveSession(db: Queryable, tokenHash: string, times: SessionTimes, now = new Date()): Promise<LiveSession | undefined> {
  const row = await db.consoleSession.findUnique({ where: { tokenHash }, include: { person: true } });
  if (!row || row.expiresAt <= now || row.lastSeenAt.getTime() + times.idleMinutes * 60_000 <= now.getTime()) return undefined;
  if (now.getTime() - row.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
    await db.consoleSession.updateMany({ where: { tokenHash }, data: { lastSeenAt: now } });
    row.lastSeenAt = now;
  }
  const { person } = row;
  return {
    tokenHash,
    personId: person.id,
    kind: person.kind,
    companyId: person.companyId,
    name: person.name,
    scopes: person.scopes,
    expiresAt: row.expiresAt,
    lastSeenAt: row.lastSeenAt,
  };
}

/** When the session ends unless another request comes first. */
export const idleExpiry = (session: Pick<LiveSession, 'lastSeenAt' | 'expiresAt'>, times: SessionTimes): Date =>
  new Date(Math.min(session.lastSeenAt.getTime() + times.idleMinutes * 60_000, session.expiresAt.getTime()));

export async function endSession(db: Queryable, tokenHash: string): Promise<void> {
  await db.consoleSession.deleteMany({ where: { tokenHash } });
}

/**
 * The Set-Cookie value of a new session (`token`) or of a sign-out (undefined). `Secure` on plain-HTTP
 * loopback too (a decision, docs/console.md): the `__Host-` prefix requires it, and browsers treat
 * http://localhost as a secure context, so they keep and send the cookie there; one line for every
 * deployment, stricter than the allowance to leave it off on loopback.
 */
export function sessionCookie(token: string | undefined, maxHours: number): string {
  const value = token ?? '';
  const maxAge = token ? maxHours * 3600 : 0;
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; Secure; SameSite=Strict; Max-Age=${maxAge}`;
}

/** The session cookie's value in a Cookie header, if any. */
export function sessionCookieValue(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === SESSION_COOKIE) return rest.join('=') || undefined;
  }
  return undefined;
}
