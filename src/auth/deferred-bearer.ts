/**
 * The Bearer check of the busiest operations, done inside their own statements instead of a round
 * trip of its own before them: on this machine a database round trip costs more of the service's
 * time than anything else a get does (bench/results.md). The token is still checked against the
 * database on every request, so revocation acts at once in every process.
 *
 * - A read's statement binds the token's hash, takes the company from the token's row and returns
 *   that row as JSON next to its own columns (`companyBinding`). When it returns no row, `settle`
 *   checks the token alone, so a bad token is 401 (or 403), never 404 or an empty list.
 * - A write in our own transaction sends the token's check with BEGIN and its idempotency claim
 *   (`tokenStatement`, `companyExpression`), and `accept`s it before anything is written.
 *
 * Nothing a statement read is used until the token is accepted.
 */
import type { Database } from '../database/prisma-client';
import { batchStatement, inlineParameters } from '../database/sql';
import { findStoredToken, principalOf, storedTokenSelect, type Principal, type StoredToken } from './bearer-guard';

// Its three-table join costs PostgreSQL more to plan than to run: prepared once per connection.
const TOKEN_CHECK = batchStatement('bearer_token_check', ['text'], storedTokenSelect('$1'));

export class DeferredBearer {
  private principal: Principal | undefined;

  constructor(
    private readonly db: Database,
    readonly tokenHash: string,
    private readonly requirements: string[][],
  ) {}

  /** True once the token was accepted: the principal is known. */
  get settled(): boolean {
    return this.principal !== undefined;
  }

  /**
   * Accepts the token from the `bearerToken` column of the statement's first row, or, when the
   * statement returned no row, from a statement of its own. Throws 401 or 403 as the guard does.
   */
  async settle(firstRow: { bearerToken?: unknown } | undefined): Promise<Principal> {
    if (this.principal) return this.principal;
    const stored = firstRow ? (firstRow.bearerToken as StoredToken | null) : await findStoredToken(this.db, this.tokenHash);
    return this.accept(stored ?? undefined);
  }

  /** Accepts the token from the rows of `tokenStatement()` (none when the token is unknown). Throws 401 or 403. */
  accept(stored: StoredToken | undefined): Principal {
    this.principal ??= principalOf(stored, this.requirements);
    return this.principal;
  }

  /** The token's row, for a batch of statements sent with BEGIN that carries its check. */
  tokenStatement(): string {
    return TOKEN_CHECK.execute([this.tokenHash]);
  }

  /** The SQL expression of the token's company (NULL for an unknown token), inlined as `tokenStatement`. */
  companyExpression(): string {
    return inlineParameters('(SELECT company_id FROM access_tokens WHERE token_hash = $1)', [this.tokenHash]);
  }
}

/** Where a company-scoped read gets its company: a principal already checked, or a token it checks itself. */
export type CompanyScope = { companyId: string } | DeferredBearer;

/** How one statement of a company-scoped read binds its company. */
export interface CompanyBinding {
  /** The value of `$1`: the company's id, or the token's hash. */
  firstValue: string;
  /** The SQL expression of the company's id, for the statement's conditions. */
  company: string;
  /** The statement's WITH clause: the token's row as `bearer` when the statement checks it, then `items`. */
  withClause(...items: string[]): string;
  /** Goes at the end of the select list (empty, or the token's row as JSON, `bearerToken`). */
  tokenColumn: string;
  /** The name of a fixed statement written with this binding (the text differs when it checks a token). */
  statementName(name: string): string;
  /** Must be awaited with the statement's rows before any of them is used. */
  settle(rows: ReadonlyArray<{ bearerToken?: unknown }>): Promise<void>;
}

export function companyBinding(scope: CompanyScope): CompanyBinding {
  if (!(scope instanceof DeferredBearer)) {
    return {
      firstValue: scope.companyId,
      company: '$1',
      withClause: withClauseOf,
      tokenColumn: '',
      statementName: (name) => name,
      settle: async () => undefined,
    };
  }
  return {
    firstValue: scope.tokenHash,
    company: '(SELECT "companyId" FROM bearer)',
    withClause: (...items) => withClauseOf(`bearer AS (${storedTokenSelect('$1')})`, ...items),
    tokenColumn: ', (SELECT to_jsonb(bearer) FROM bearer) AS "bearerToken"',
    statementName: (name) => `${name}-for-token`,
    settle: async (rows) => void (await scope.settle(rows[0])),
  };
}

function withClauseOf(...items: string[]): string {
  return items.length > 0 ? `WITH ${items.join(', ')}` : '';
}
