/**
 * An ERP provider calls the token endpoint for 30 agencies from one egress address. One agency's
 * secret is misconfigured and its requests fail 100 times; someone also sweeps made-up client IDs
 * from that address. Every agency that obtained a token from the address lately keeps getting
 * tokens (never a 429); the failing agency is stopped by its own failures; the address lockout
 * still refuses every client ID that is not known there. Default limits (20 failures per address,
 * 10 per client ID); addresses come from a trusted proxy. How long the known agencies' tokens take
 * meanwhile is a benchmark's figure (`BENCH_ONLY=token make bench`), not asserted here.
 */
import { useTestApp } from '../support/test-app';
import type { CreatedCredential } from '../../src/auth/credentials';
import { expectOAuthError, newCredential, tokenRequestFrom } from './token-harness';

/** Locked-out answers are still held before their 429 (the path is exercised), briefly: nothing here times them. */
const t = useTestApp({ TRUST_PROXY: 'loopback', TOKEN_LOCKOUT_ANSWER_DELAY_MS: '200' });

const ERP = '198.51.100.200';
const AGENCIES = 30;

interface Answer {
  status: number;
  error?: string;
  description?: string;
}

async function tokenFromErp(credential: CreatedCredential, secret = credential.clientSecret): Promise<Answer> {
  const response = await tokenRequestFrom(t.app, ERP, credential.clientId, secret);
  return { status: response.status, error: response.body.error, description: response.body.error_description };
}

/** Runs `count` tasks, `concurrency` at a time. */
async function inParallel<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await task(index);
      }
    }),
  );
  return results;
}

const statuses = (answers: Answer[]) => answers.map((answer) => answer.status);

test("one agency's wrong secret and a sweep of client IDs from an ERP's address do not stop the other agencies there", async () => {
  const agencies: CreatedCredential[] = [];
  for (let index = 0; index < AGENCIES; index++) agencies.push(await newCredential(t.db));
  const [failing, ...others] = agencies as [CreatedCredential, ...CreatedCredential[]];
  // Every agency has been getting tokens through the ERP: the address is known for each.
  const usual = await inParallel(AGENCIES, 3, (index) => tokenFromErp(agencies[index]!));
  expect(statuses(usual)).toEqual(Array(AGENCIES).fill(200));

  // The failing agency's secret was rotated without updating the ERP: 100 attempts at once,
  // while the other 29 agencies each ask for a token three times, 3 at a time.
  const [failures, meanwhile] = await Promise.all([
    inParallel(100, 100, () => tokenFromErp(failing, 'sbx_cs_the_old_secret')),
    inParallel(others.length * 3, 3, (index) => tokenFromErp(others[index % others.length]!)),
  ]);
  expect(statuses(meanwhile)).toEqual(Array(others.length * 3).fill(200));
  // Its own failures at this address stop the failing agency after 10 (its client ID's limit)...
  expect(failures.filter((answer) => answer.status === 401)).toHaveLength(10);
  const refused = failures.filter((answer) => answer.status === 429);
  expect(refused).toHaveLength(90);
  expect(refused.every((answer) => answer.error === 'temporarily_unavailable' && /for this client ID/.test(answer.description!))).toBe(true);
  // A sweep of made-up client IDs from the same address reaches the address's limit (20 failures
  // in all, the failing agency's 10 included) and is then refused unseen.
  const sweep = await inParallel(30, 30, (index) =>
    tokenRequestFrom(t.app, ERP, `sbx_ci_sweep${index}`, 'sbx_cs_guess').then((response) => response.status),
  );
  expect(sweep.filter((status) => status === 401)).toHaveLength(10);
  expect(sweep.filter((status) => status === 429)).toHaveLength(20);
  const newcomer = await newCredential(t.db);
  const [fixed, newcomerAnswer, after] = await Promise.all([
    tokenRequestFrom(t.app, ERP, failing.clientId, failing.clientSecret),
    tokenRequestFrom(t.app, ERP, newcomer.clientId, newcomer.clientSecret),
    inParallel(others.length, 3, (index) => tokenFromErp(others[index]!)),
  ]);
  // The failing agency stays locked out once the ERP has the right secret: it waits for Retry-After.
  expect(fixed.status).toBe(429);
  expectOAuthError(fixed.body, 'temporarily_unavailable');
  // The address lockout refuses a client ID that never obtained a token here, even with its right secret...
  expect(newcomerAnswer.status).toBe(429);
  expect(newcomerAnswer.body.error_description).toMatch(/from this address/);
  // ...and the 29 agencies known there keep getting tokens.
  expect(statuses(after)).toEqual(Array(others.length).fill(200));
  // The newcomer is not concerned anywhere else.
  expect((await tokenRequestFrom(t.app, '198.51.100.201', newcomer.clientId, newcomer.clientSecret)).status).toBe(200);
}, 120_000);
