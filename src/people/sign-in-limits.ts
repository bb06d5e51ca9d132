/**
 * Sign-in limits of the console (issue 37), counted in PostgreSQL (rate-limiter-flexible's
 * RateLimiterPrisma on the token endpoint's table, under prefixes of its own) so that every process
 * shares them: every ceremony request of a client address (enrolment and sign-in, options and
 * answers) counts against that address; every failed sign-in of a person (the passkey presented
 * names them) counts against that person, from any address. Beyond either limit: 429 with
 * Retry-After until the window ends.
 */
import { RateLimiterPrisma, RateLimiterRes } from 'rate-limiter-flexible';
import type { Database } from '../database/prisma-client';
import { ApiError } from '../errors';

export interface SignInLimitSettings {
  attemptsPerAddress: number;
  failuresPerPerson: number;
  windowSeconds: number;
}

export class SignInLimits {
  private readonly byAddress: RateLimiterPrisma;
  private readonly byPerson: RateLimiterPrisma;

  constructor(db: Database, settings: SignInLimitSettings) {
    const limiter = (keyPrefix: string, points: number) =>
      new RateLimiterPrisma({
        storeClient: db,
        tableName: 'tokenRateLimit',
        keyPrefix,
        points,
        duration: settings.windowSeconds,
        clearExpiredByTimeout: false,
      });
    this.byAddress = limiter('console_address', settings.attemptsPerAddress);
    this.byPerson = limiter('console_person', settings.failuresPerPerson);
  }

  /** Counts one ceremony request of the address; 429 beyond the limit. */
  async attempt(address: string): Promise<void> {
    await refuseWhenSpent(() => this.byAddress.consume(address), 'from this address');
  }

  /** 429 when the person's failures already reached the limit (checked before the signature is). */
  async checkPerson(personId: string): Promise<void> {
    const spent = await this.byPerson.get(personId);
    if (spent && spent.remainingPoints <= 0) throw tooMany(spent.msBeforeNext, 'for this person');
  }

  async failed(personId: string): Promise<void> {
    await this.byPerson.penalty(personId, 1);
  }
}

async function refuseWhenSpent(consume: () => Promise<unknown>, what: string): Promise<void> {
  try {
    await consume();
  } catch (error) {
    if (error instanceof RateLimiterRes) throw tooMany(error.msBeforeNext, what);
    throw error;
  }
}

function tooMany(msBeforeNext: number, what: string): ApiError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError(429, 'rate_limited', `Too many sign-in attempts ${what}; retry after ${seconds} seconds.`, undefined, {
    'Retry-After': String(seconds),
  });
}
