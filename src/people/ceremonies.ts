/**
 * The console's WebAuthn ceremonies (issue 37), on @simplewebauthn/server: an invitation becomes a
 * passkey and a session (enrolment), a passkey becomes a session (sign-in), and a signed-in person
 * adds a passkey. Every check is the library's (origin, RP ID, challenge, user verification,
 * signature, counter); ours are the invitation (known, unexpired, unused), the challenge (issued
 * here, spent once) and the passkey's owner. Nothing is stored unless every check passed.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import type { Database, Queryable } from '../database/prisma-client';
import { BadRequest, Conflict, NotFound } from '../errors';
import type { ConsolePerson } from '../generated/prisma/client';
import { hashInvitation } from './people';
import { keepChallenge, spendChallenge, type RelyingParty } from './relying-party';

/**
 * @simplewebauthn/server (with its CBOR, ASN.1 and COSE code) is loaded at the first ceremony, as
 * pdfkit is at the first contract: most processes serve partners and never run one, and it holds
 * about 4 MB of heap and 18 MB of resident memory (bench/results.md, "Libraries loaded at
 * their first use").
 */
const webauthn = () => import('@simplewebauthn/server');

/** Passkeys one person may hold. */
export const MAX_PASSKEYS = 10;

const invitationInvalid = () => new BadRequest('invitation_invalid', 'This invitation link is unknown, expired or already used; ask for a new one.');
const passkeyInvalid = (why: string) => new BadRequest('passkey_invalid', `The passkey could not be registered: ${why}`);
export const signInFailed = () =>
  new BadRequest('sign_in_failed', 'Sign-in failed: this passkey is not registered here, or its answer is not valid. Try again.');

/** The person of a usable invitation (locked until the transaction ends when `tx` is one), or 400 invitation_invalid. */
async function invitedPerson(db: Queryable, invitation: string, lock = false): Promise<ConsolePerson> {
  const tokenHash = hashInvitation(invitation);
  if (lock) await db.$queryRaw`SELECT 1 FROM console_invitations WHERE token_hash = ${tokenHash} FOR UPDATE`;
  const found = await db.consoleInvitation.findUnique({ where: { tokenHash }, include: { person: true } });
  if (!found || found.usedAt || found.expiresAt <= new Date()) throw invitationInvalid();
  return found.person;
}

async function registrationOptions(db: Queryable, rp: RelyingParty, person: ConsolePerson) {
  const held = await db.consolePasskey.findMany({ where: { personId: person.id }, select: { id: true, transports: true } });
  const options = await (
    await webauthn()
  ).generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.rpId,
    userName: person.name,
    userDisplayName: person.name,
    userID: Buffer.from(person.userHandle, 'base64url'),
    attestationType: 'none',
    excludeCredentials: held.map((passkey) => ({ id: passkey.id, transports: passkey.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { options, held: held.length };
}

export async function startEnrolment(db: Database, rp: RelyingParty, invitation: string) {
  const person = await invitedPerson(db, invitation);
  const { options } = await registrationOptions(db, rp, person);
  await keepChallenge(db, options.challenge, 'enrolment', { personId: person.id, invitationHash: hashInvitation(invitation) });
  return { person, options };
}

/** Verifies a registration response against a spent challenge; the new passkey's columns. */
async function verifiedPasskey(rp: RelyingParty, response: RegistrationResponseJSON, challenge: string) {
  let verification;
  try {
    verification = await (
      await webauthn()
    ).verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      requireUserVerification: true,
    });
  } catch (error) {
    throw passkeyInvalid((error as Error).message.slice(0, 300));
  }
  if (!verification.verified || !verification.registrationInfo) throw passkeyInvalid('the authenticator did not verify the person');
  const { credential } = verification.registrationInfo;
  return {
    id: credential.id,
    publicKey: Buffer.from(credential.publicKey),
    counter: BigInt(credential.counter),
    transports: credential.transports ?? [],
  };
}

/** The invitation's passkey registered, the invitation spent; the person to sign in. */
export async function enrol(db: Database, rp: RelyingParty, input: { invitation: string; passkeyName?: string; response: RegistrationResponseJSON }) {
  const spent = await spendChallenge(db, input.response.response.clientDataJSON, 'enrolment');
  if (!spent || spent.invitationHash !== hashInvitation(input.invitation)) throw invitationInvalid();
  return db.$transaction(async (tx) => {
    const person = await invitedPerson(tx, input.invitation, true);
    const passkey = await verifiedPasskey(rp, input.response, spent.challenge);
    await tx.consolePasskey.create({ data: { ...passkey, personId: person.id, name: input.passkeyName?.trim() || 'Passkey' } });
    await tx.consoleInvitation.update({ where: { tokenHash: hashInvitation(input.invitation) }, data: { usedAt: new Date() } });
    return person;
  });
}

export async function startSignIn(db: Database, rp: RelyingParty) {
  const options = await (await webauthn()).generateAuthenticationOptions({ rpID: rp.rpId, userVerification: 'required', allowCredentials: [] });
  await keepChallenge(db, options.challenge, 'sign_in');
  return options;
}

/**
 * The passkey's person, once the response is verified. `beforeVerifying` runs when the person is
 * known (their failure limit); `onFailure` is told of a failure of a known person.
 */
export async function signIn(
  db: Database,
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  hooks: { beforeVerifying(personId: string): Promise<void>; onFailure(personId: string): Promise<void> },
): Promise<ConsolePerson> {
  const spent = await spendChallenge(db, response.response.clientDataJSON, 'sign_in');
  const passkey = await db.consolePasskey.findUnique({ where: { id: response.id }, include: { person: true } });
  if (!passkey) throw signInFailed();
  await hooks.beforeVerifying(passkey.personId);
  const handle = response.response.userHandle;
  let verification;
  try {
    if (!spent || (handle !== undefined && handle !== passkey.person.userHandle)) throw signInFailed();
    verification = await (
      await webauthn()
    ).verifyAuthenticationResponse({
      response,
      expectedChallenge: spent.challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpId,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(passkey.publicKey),
        counter: Number(passkey.counter),
        transports: passkey.transports as never,
      },
      requireUserVerification: true,
    });
    if (!verification.verified) throw signInFailed();
  } catch {
    await hooks.onFailure(passkey.personId);
    throw signInFailed();
  }
  await db.consolePasskey.update({
    where: { id: passkey.id },
    data: { counter: BigInt(verification.authenticationInfo.newCounter), lastUsedAt: new Date() },
  });
  return passkey.person;
}

export async function startPasskeyRegistration(db: Queryable, rp: RelyingParty, personId: string) {
  const person = await db.consolePerson.findUniqueOrThrow({ where: { id: personId } });
  const { options, held } = await registrationOptions(db, rp, person);
  if (held >= MAX_PASSKEYS) throw passkeyLimit();
  await keepChallenge(db, options.challenge, 'passkey', { personId });
  return options;
}

const passkeyLimit = () => new Conflict('passkey_limit_reached', `A person holds at most ${MAX_PASSKEYS} passkeys; remove one first.`);

export async function addPasskey(db: Queryable, rp: RelyingParty, personId: string, input: { name: string; response: RegistrationResponseJSON }) {
  const spent = await spendChallenge(db, input.response.response.clientDataJSON, 'passkey');
  if (!spent || spent.personId !== personId) throw passkeyInvalid('the registration was not started by this session, or has expired');
  await db.$queryRaw`SELECT 1 FROM console_people WHERE id = ${personId}::uuid FOR UPDATE`;
  if ((await db.consolePasskey.count({ where: { personId } })) >= MAX_PASSKEYS) throw passkeyLimit();
  const passkey = await verifiedPasskey(rp, input.response, spent.challenge);
  return db.consolePasskey.create({ data: { ...passkey, personId, name: input.name.trim() } });
}

export async function removePasskey(db: Queryable, personId: string, passkeyId: string): Promise<void> {
  await db.$queryRaw`SELECT 1 FROM console_people WHERE id = ${personId}::uuid FOR UPDATE`;
  const passkeys = await db.consolePasskey.findMany({ where: { personId }, select: { id: true } });
  if (!passkeys.some((passkey) => passkey.id === passkeyId)) throw new NotFound('Passkey not found.');
  if (passkeys.length === 1) throw new Conflict('last_passkey', 'This is your only passkey; add another before removing it.');
  await db.consolePasskey.delete({ where: { id: passkeyId } });
}
