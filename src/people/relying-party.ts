/**
 * The WebAuthn relying party (issue 37): the service's own origin, whose host is the RP ID, and the
 * challenges of its ceremonies. A challenge is stored server-side (every process shares it), valid
 * five minutes, and spent by its first use whatever the outcome: a replayed response finds none.
 */
import { randomUUID } from 'node:crypto';
import type { Environment } from '../auth/opaque-secrets';
import type { Queryable } from '../database/prisma-client';

export interface RelyingParty {
  /** The origin a response must come from (`https://host[:port]`). */
  origin: string;
  /** Its host: a passkey is bound to it. */
  rpId: string;
  name: string;
}

export const CHALLENGE_SECONDS = 300;

export type Purpose = 'enrolment' | 'passkey' | 'sign_in';

export function relyingParty(origin: string, environment: Environment): RelyingParty {
  return {
    origin,
    rpId: new URL(origin).hostname,
    name: environment === 'sandbox' ? 'Rental Guarantee console (sandbox)' : 'Rental Guarantee console',
  };
}

export async function keepChallenge(
  db: Queryable,
  challenge: string,
  purpose: Purpose,
  owner: { personId?: string; invitationHash?: string } = {},
): Promise<void> {
  await db.consoleChallenge.create({
    data: {
      id: randomUUID(),
      challenge,
      purpose,
      personId: owner.personId ?? null,
      invitationHash: owner.invitationHash ?? null,
      expiresAt: new Date(Date.now() + CHALLENGE_SECONDS * 1000),
    },
  });
}

/** The challenge a response's clientDataJSON names, spent now; undefined when unknown, expired, of another purpose or already used. */
export async function spendChallenge(db: Queryable, clientDataJSON: string, purpose: Purpose) {
  let challenge: unknown;
  try {
    challenge = (JSON.parse(Buffer.from(clientDataJSON, 'base64url').toString('utf8')) as { challenge?: unknown }).challenge;
  } catch {
    return undefined;
  }
  if (typeof challenge !== 'string' || challenge.length > 200) return undefined;
  const rows = await db.$queryRaw<Array<{ challenge: string; personId: string | null; invitationHash: string | null }>>`
    DELETE FROM console_challenges WHERE challenge = ${challenge} AND purpose = ${purpose} AND expires_at > now()
    RETURNING challenge, person_id::text AS "personId", invitation_hash AS "invitationHash"`;
  return rows[0];
}
