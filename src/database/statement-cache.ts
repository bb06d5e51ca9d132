/**
 * A per-connection statement cache under Prisma's pg adapter.
 *
 * Prisma's classic query engine kept the statements it sent prepared on each connection
 * (`statement_cache_size`, 100 by default). Its pg driver adapter sends every statement unnamed,
 * so PostgreSQL parses, analyses and plans each one again on every execution: for a write, whose
 * statements are long (CTEs over several tables), that was more than half of PostgreSQL's work
 * (see bench/results.md). This pool client restores the cache at the driver: a parameterised
 * statement is sent under a name derived from its text, so the connection parses it once and
 * PostgreSQL's plan cache may then keep its plan (it keeps a generic plan only where that plan
 * costs no more than the custom ones).
 *
 * - Only statements with parameters are named (BEGIN, COMMIT and the like keep the simple protocol).
 * - A statement with a `LIKE` pattern stays unnamed: its best plan depends on the pattern typed by
 *   the partner (a rare name against a common one), so it is planned for each value as before.
 * - At most STATEMENTS_PER_CONNECTION distinct texts per connection, so that neither this process
 *   nor PostgreSQL's backend grows with statements built from varying input (an `IN` list of any
 *   length); later texts are sent unnamed.
 *
 * Named statements live as long as their connection and are not transactional, so a rolled-back
 * transaction leaves them usable; pg forgets a name whose Parse failed. A statement's result must
 * name its columns (no top-level `SELECT *` or `RETURNING *`, as Prisma's own statements do): a
 * kept statement whose result columns change under it (a migration adding one while this process
 * runs) would fail on every later use of its connection.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../config';
import { connectionLost } from './driver-errors';

const STATEMENTS_PER_CONNECTION = 100;

interface QueryConfigLike {
  text?: unknown;
  name?: unknown;
  values?: unknown;
  submit?: unknown;
}

function isPlainConfig(value: unknown): value is QueryConfigLike & { text: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as QueryConfigLike).text === 'string' &&
    typeof (value as QueryConfigLike).submit !== 'function'
  );
}

function hasParameters(config: QueryConfigLike, values: unknown): boolean {
  const given = config.values ?? values;
  return Array.isArray(given) && given.length > 0;
}

function cacheable(text: string): boolean {
  return !/\bLIKE\b/i.test(text);
}

/**
 * A pg client whose parameterised statements PostgreSQL keeps prepared for the connection's life,
 * and whose queries failed by the end of its connection say so by code (driver-errors.ts).
 */
export class StatementCachingClient extends pg.Client {
  private readonly names = new Map<string, string>();
  /** pg emits these before it rejects the connection's queries (on the next tick). */
  private ended = false;

  constructor(config?: pg.ClientConfig) {
    super(config);
    const end = () => (this.ended = true);
    this.on('end', end);
    this.on('error', end);
  }

  /**
   * The error a connection emits when it ends under a query (pg-pool's `query()` rejects that
   * query with it, not through query() below) is marked here, at its source, as a lost connection.
   */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event === 'error' && args.length > 0) args[0] = connectionLost(args[0]);
    return super.emit(event, ...args);
  }

  // pg's overloads of query() cannot be restated one by one here; the arguments pass through untouched.
  override query(...args: unknown[]): never {
    const [config, values] = args;
    if (isPlainConfig(config) && config.name === undefined && hasParameters(config, values) && cacheable(config.text)) {
      const name = this.nameFor(config.text);
      if (name !== undefined) args[0] = { ...config, name };
    }
    const result = (super.query as (...input: unknown[]) => unknown)(...args);
    if (!(result instanceof Promise)) return result as never;
    return result.catch((error: unknown) => {
      throw this.ended ? connectionLost(error) : error;
    }) as never;
  }

  protected nameFor(text: string): string | undefined {
    const known = this.names.get(text);
    if (known !== undefined || this.names.size >= STATEMENTS_PER_CONNECTION) return known;
    const name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 32)}`;
    this.names.set(text, name);
    return name;
  }
}

/**
 * The same client with no statement named (DATABASE_STATEMENT_CACHE off, or `auto` behind a
 * transaction pooler, which hands one server connection to several clients: a name one client
 * made there collides with another's, 42P05); its lost connections are still marked by code.
 */
export class UnnamedStatementClient extends StatementCachingClient {
  protected override nameFor(): undefined {
    return undefined;
  }
}

/** Whether the pool names its statements (DATABASE_STATEMENT_CACHE, config.ts). */
export function namesStatements(config: Pick<Config, 'DATABASE_URL' | 'DATABASE_DIRECT_URL' | 'DATABASE_STATEMENT_CACHE'>): boolean {
  if (config.DATABASE_STATEMENT_CACHE !== 'auto') return config.DATABASE_STATEMENT_CACHE === 'on';
  return !config.DATABASE_DIRECT_URL || config.DATABASE_DIRECT_URL === config.DATABASE_URL;
}
