/**
 * Refuses a connection string that reaches a transaction pooler where a session is needed
 * (migrations: `prisma migrate deploy` takes a session-level advisory lock, which a transaction
 * pooler leaves held on a pooled server connection, blocking every later migration).
 *
 * On a session connection a client keeps its server process for its life. A transaction pooler
 * hands a client a server process per transaction and takes it back after; PgBouncer hands out
 * the server it took back last (LIFO). So: client A asks its server's pid and goes idle; client B
 * opens a transaction and asks its pid; A asks again. On a session connection B's pid differs from
 * A's and A's stays the same, always. Behind a transaction pooler B gets A's former server (same
 * pid), and A then gets another one: either sign proves a pooler. A pooler that hands out servers
 * in another order may pass unseen; the check never refuses a real session connection.
 */
import pg from 'pg';

export class TransactionPoolerError extends Error {}

export async function assertSessionConnection(connectionString: string): Promise<void> {
  const a = new pg.Client({ connectionString, application_name: 'session-check' });
  const b = new pg.Client({ connectionString, application_name: 'session-check' });
  const pid = async (client: pg.Client) => (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
  try {
    await a.connect();
    await b.connect();
    const first = await pid(a);
    await b.query('BEGIN');
    const other = await pid(b);
    const again = await pid(a);
    await b.query('COMMIT');
    if (other === first || again !== first)
      throw new TransactionPoolerError(
        'The migration connection (DATABASE_DIRECT_URL, or DATABASE_URL when it is unset) reaches a transaction pooler: one client was ' +
          'served by several PostgreSQL processes. Migrations need a session: set DATABASE_DIRECT_URL to the database itself or to a session-mode pool.',
      );
  } finally {
    await Promise.all([a.end().catch(() => undefined), b.end().catch(() => undefined)]);
  }
}
