/**
 * The console's own API (issue 37): openapi/console.yaml, served by the same pipeline as every
 * other document under `${CONSOLE_BASE_PATH}/api`. Enrolment and sign-in are public operations
 * (the ceremonies hold their own checks and limits); the rest needs the session. Every screen's
 * data comes from openapi/back-office.yaml's operations, not from here.
 */
import type { RegistrationResponseJSON, AuthenticationResponseJSON } from '@simplewebauthn/server';
import type { Config } from '../config';
import { loadContract } from '../contract/load-contract';
import type { Database } from '../database/prisma-client';
import type { components, operations } from '../generated/console-api';
import type { ApiDefinition } from '../http/pipeline';
import { operationRegistry, type RequestFacts } from '../http/operation-registry';
import { endSession, findLiveSession, idleExpiry, sessionCookie, startSession, type SessionTimes } from '../auth/session-store';
import { Unauthorized } from '../auth/principal';
import { addPasskey, enrol, removePasskey, signIn, startEnrolment, startPasskeyRegistration, startSignIn } from '../people/ceremonies';
import { relyingParty } from '../people/relying-party';
import { SignInLimits } from '../people/sign-in-limits';
import { consoleWork, type ConsoleWork } from './console-work';

type Schemas = components['schemas'];

const { defineOperation, definePublicOperation } = operationRegistry<operations, ConsoleWork>();

export function consoleApi(config: Config, db: Database): ApiDefinition<ConsoleWork> {
  const environment = config.ENVIRONMENT;
  const times: SessionTimes = { idleMinutes: config.CONSOLE_SESSION_IDLE_MINUTES, maxHours: config.CONSOLE_SESSION_MAX_HOURS };
  const limits = new SignInLimits(db, {
    attemptsPerAddress: config.CONSOLE_SIGN_IN_ATTEMPTS_PER_ADDRESS,
    failuresPerPerson: config.CONSOLE_SIGN_IN_FAILURES_PER_PERSON,
    windowSeconds: config.CONSOLE_SIGN_IN_WINDOW_SECONDS,
  });
  const rpOf = (request: RequestFacts) => relyingParty(request.origin, environment);

  /** A new session of the person: its answer and the cookie. */
  const signedIn = async (personId: string) => {
    const { token, row } = await startSession(db, environment, personId, times);
    const person = await db.consolePerson.findUniqueOrThrow({ where: { id: personId } });
    const body: Schemas['Session'] = {
      person: toPerson(person),
      expiresAt: row.expiresAt.toISOString(),
      idleExpiresAt: idleExpiry(row, times).toISOString(),
    };
    return { body, headers: { 'Set-Cookie': sessionCookie(token, times.maxHours) } };
  };

  const operations = [
    definePublicOperation('startEnrolment', async ({ body }, request) => {
      await limits.attempt(request.address);
      const started = await startEnrolment(db, rpOf(request), body.invitation);
      return { status: 200, body: { person: toPerson(started.person), options: started.options as Schemas['RegistrationOptions'] } };
    }),
    definePublicOperation('enrol', async ({ body }, request) => {
      await limits.attempt(request.address);
      const person = await enrol(db, rpOf(request), {
        invitation: body.invitation,
        passkeyName: body.passkeyName,
        response: body.response as unknown as RegistrationResponseJSON,
      });
      return { status: 201, ...(await signedIn(person.id)) };
    }),
    definePublicOperation('startSignIn', async (_input, request) => {
      await limits.attempt(request.address);
      const options = await startSignIn(db, rpOf(request));
      // What the contract declares, and no more (the library may add empty extensions).
      const declared: Schemas['AuthenticationOptions'] = {
        challenge: options.challenge,
        rpId: options.rpId ?? rpOf(request).rpId,
        allowCredentials: [],
      };
      if (options.timeout !== undefined) declared.timeout = options.timeout;
      if (options.userVerification !== undefined) declared.userVerification = options.userVerification;
      return { status: 200, body: { options: declared } };
    }),
    definePublicOperation('signIn', async ({ body }, request) => {
      await limits.attempt(request.address);
      const person = await signIn(db, rpOf(request), body.response as unknown as AuthenticationResponseJSON, {
        beforeVerifying: (personId) => limits.checkPerson(personId),
        onFailure: (personId) => limits.failed(personId),
      });
      return { status: 200, ...(await signedIn(person.id)) };
    }),
    defineOperation('signOut', {
      handler: async (_input, work) => {
        await endSession(work.db, work.session().tokenHash);
        return { status: 204, body: undefined, headers: { 'Set-Cookie': sessionCookie(undefined, times.maxHours) } };
      },
    }),
    defineOperation('getSession', {
      handler: async (_input, work) => {
        const session = await findLiveSession(work.db, work.session().tokenHash, times);
        if (!session) throw new Unauthorized('The console session is unknown or has ended; sign in again.', true);
        const person = await work.db.consolePerson.findUniqueOrThrow({ where: { id: session.personId } });
        return {
          status: 200,
          body: { person: toPerson(person), expiresAt: session.expiresAt.toISOString(), idleExpiresAt: idleExpiry(session, times).toISOString() },
        };
      },
    }),
    defineOperation('listPasskeys', {
      handler: async (_input, work) => {
        const rows = await work.db.consolePasskey.findMany({ where: { personId: work.session().personId }, orderBy: { createdAt: 'asc' }, take: 10 });
        return { status: 200, body: { passkeys: rows.map(toPasskey) } };
      },
    }),
    defineOperation('startPasskeyRegistration', {
      handler: async (_input, work, request) => ({
        status: 200,
        body: (await startPasskeyRegistration(work.db, rpOf(request), work.session().personId)) as Schemas['RegistrationOptions'],
      }),
    }),
    defineOperation('addPasskey', {
      handler: async ({ body }, work, request) => {
        const row = await addPasskey(work.db, rpOf(request), work.session().personId, {
          name: body.name,
          response: body.response as unknown as RegistrationResponseJSON,
        });
        return { status: 201, body: toPasskey(row) };
      },
    }),
    defineOperation('removePasskey', {
      handler: async ({ params }, work) => {
        await removePasskey(work.db, work.session().personId, params.passkeyId);
        return { status: 204, body: undefined };
      },
    }),
  ];
  return { name: 'openapi/console.yaml', document: loadContract('console'), operations, workFor: consoleWork };
}

function toPerson(person: { id: string; name: string; kind: string; companyId: string; scopes: string[] }): Schemas['Person'] {
  // A person's scopes are the back office's, checked when they were invited (people.ts).
  return {
    id: person.id,
    name: person.name,
    kind: person.kind as Schemas['Person']['kind'],
    companyId: person.companyId,
    scopes: person.scopes as Schemas['Person']['scopes'],
  };
}

function toPasskey(row: { id: string; name: string; createdAt: Date; lastUsedAt: Date | null }): Schemas['Passkey'] {
  return { id: row.id, name: row.name, createdAt: row.createdAt.toISOString(), lastUsedAt: row.lastUsedAt?.toISOString() ?? null };
}
