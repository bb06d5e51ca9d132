/**
 * Test factories of the console (issue 37): a person invited through the domain function, signed in
 * with a session started the way the sign-in ceremony starts it (startSession), and the headers a
 * console page sends with it. The ceremonies themselves (passkeys) run in the browser journeys.
 */
import request from 'supertest';
import { staffActor } from '../../src/auth/audit-log';
import { startSession } from '../../src/auth/session-store';
import { invitePerson, type NewPerson } from '../../src/people/people';
import type { TestApp } from '../support/test-app';

export interface SignedIn {
  personId: string;
  token: string;
  /** What the console's pages send besides Origin: the cookie and X-Console-Request. */
  headers: Record<string, string>;
}

let people = 0;

export async function signedInPerson(t: TestApp, person: Partial<Omit<NewPerson, 'actor'>> & { kind: 'director' | 'staff' }): Promise<SignedIn> {
  people += 1;
  const { person: row } = await invitePerson(
    t.db,
    t.config.ENVIRONMENT,
    {
      name: `Pessoa ${people}`,
      ...person,
      ...(person.kind === 'staff' ? { scopes: person.scopes ?? ['ops:guarantees:review'] } : {}),
      actor: staffActor('test', 'cli'),
    },
    24,
  );
  const { token } = await startSession(t.db, t.config.ENVIRONMENT, row.id, { idleMinutes: 30, maxHours: 12 });
  return { personId: row.id, token, headers: { Cookie: `__Host-rg-console=${token}`, 'X-Console-Request': '1' } };
}

/** A request as a console page makes it (supertest's Host is 127.0.0.1:<port>; Origin is checked against the scheme and host). */
export function asConsole(t: TestApp, who: SignedIn) {
  // The service as a browser reaches it (Host), and the Origin its own pages send.
  const origin = (req: request.Test) => req.set({ ...who.headers, Host: 'console.test', Origin: 'http://console.test' });
  return {
    get: (path: string) => origin(request(t.app).get(path)),
    post: (path: string, body?: unknown, key = `k-${Math.random()}`) => {
      const call = origin(request(t.app).post(path)).set('Idempotency-Key', key);
      return body === undefined ? call : call.send(body as object);
    },
    delete: (path: string, key = `k-${Math.random()}`) => origin(request(t.app).delete(path)).set('Idempotency-Key', key),
  };
}
