/**
 * Random identifiers, client secrets and access tokens, and how they are stored.
 * Every value uses the URL-safe base64 alphabet, so the form-urlencoding that RFC 6749 §2.3.1
 * requires inside the Basic header leaves it unchanged. A readable prefix names the environment
 * (`sbx_`/`prd_`) so that a credential sent to the wrong environment fails at once and clearly.
 */
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import pLimit from 'p-limit';
import { metrics } from '../observability/metrics';

const scryptUnbounded = promisify(scryptCallback) as (password: string, salt: Buffer, keylen: number, options: object) => Promise<Buffer>;
/**
 * Each scrypt call holds 16 MB (128 * N * r bytes). Unbounded, a burst at the token endpoint runs
 * one per libuv thread and the memory stays with the allocator afterwards; two at a time keep both
 * cores busy (the work is CPU-bound) while bounding that memory to 32 MB.
 */
const SCRYPT_CONCURRENCY = 2;
const scryptSlot = pLimit(SCRYPT_CONCURRENCY);
const scrypt = (password: string, salt: Buffer, keylen: number, options: object) =>
  scryptSlot(() => scryptUnbounded(password, salt, keylen, options));

export type Environment = 'sandbox' | 'production';

export function environmentPrefix(environment: Environment): string {
  return environment === 'sandbox' ? 'sbx_' : 'prd_';
}

export function otherEnvironment(value: string, environment: Environment): Environment | undefined {
  const other: Environment = environment === 'sandbox' ? 'production' : 'sandbox';
  return value.startsWith(environmentPrefix(other)) ? other : undefined;
}

const random = (bytes: number) => randomBytes(bytes).toString('base64url');

export const newClientId = (environment: Environment) => `${environmentPrefix(environment)}ci_${random(15)}`;
/** 256 random bits. */
export const newClientSecret = (environment: Environment) => `${environmentPrefix(environment)}cs_${random(32)}`;
/** 256 random bits. */
export const newAccessToken = (environment: Environment) => `${environmentPrefix(environment)}at_${random(32)}`;

/** Issue 37: a console session (the cookie's value); 256 random bits. */
export const newSessionToken = (environment: Environment) => `${environmentPrefix(environment)}ses_${random(32)}`;
/** Issue 37: a console invitation (the enrolment link's token); 256 random bits. */
export const newInvitationToken = (environment: Environment) => `${environmentPrefix(environment)}inv_${random(32)}`;

/**
 * Access tokens carry 256 random bits, so a fast hash is enough to make a stolen table useless,
 * and it keeps the per-request token lookup cheap.
 */
export function hashAccessToken(token: string): string {
  return createHash('sha256').update(token).digest('base64url');
}

// Client secrets get a slow, salted hash (scrypt, N=2^14): they are long-lived.
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

export async function hashSecret(secret: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(secret, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifySecret(secret: string, stored: string): Promise<boolean> {
  const [kind, n, r, p, salt, expected] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !expected) return false;
  metrics.secretVerifications.inc();
  const expectedBytes = Buffer.from(expected, 'base64url');
  const actual = await scrypt(secret, Buffer.from(salt, 'base64url'), expectedBytes.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return timingSafeEqual(actual, expectedBytes);
}
