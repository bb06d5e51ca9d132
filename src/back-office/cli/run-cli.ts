/**
 * The admin command-line tool: `npm run admin -- <group> <command> [--option value ...] [--json]`.
 * Readable text by default, JSON with --json (for scripts). Exit codes: 0 done, 2 usage, 1 failure.
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../../config';
import { openDatabaseServer } from '../../database/database-server';
import { migrateDatabase } from '../../database/migrate';
import { createDatabaseClient } from '../../database/prisma-client';
import { ApiError } from '../../errors';
import { UsageError, type CliCommand } from './cli-command';

export async function runCli(argv: string[], commands: CliCommand[]): Promise<number> {
  const words = argv
    .filter((arg) => !arg.startsWith('--'))
    .slice(0, 2)
    .join(' ');
  const command = commands.find((candidate) => candidate.name === words);
  if (!command) {
    printUsage(commands);
    return argv.includes('--help') || argv.length === 0 ? 0 : 2;
  }
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        ...Object.fromEntries(Object.keys(command.options).map((name) => [name, { type: 'string' as const }])),
      },
    });
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const json = parsed.values.json === true;
  // Only what a command needs: no public origin, no webhook key (config.ts, purpose `admin`).
  const config = loadConfig(process.env, 'admin');
  const server = await openDatabaseServer(config, () => undefined);
  // A few statements per run: none is worth naming, and DATABASE_URL may be a transaction pooler.
  const db = createDatabaseClient(server.url, { poolMax: 2, namedStatements: false });
  try {
    await migrateDatabase(server.directUrl);
    const result = await command.run({ db, config, options: parsed.values });
    console.log(json ? JSON.stringify(result.json, null, 2) : result.text.join('\n'));
    return result.exitCode ?? 0;
  } catch (error) {
    const known = error instanceof UsageError || error instanceof ApiError;
    const message = error instanceof Error ? error.message : String(error);
    // Back office (issue #5): the service's error details (one per problem, naming the field) too.
    const details = error instanceof ApiError ? error.details : undefined;
    if (json)
      console.log(
        JSON.stringify({ error: known && error instanceof ApiError ? error.code : 'error', message, ...(details ? { details } : {}) }, null, 2),
      );
    else console.error(`${command.name}: ${message}${details ? `\n  - ${details.join('\n  - ')}` : ''}`);
    return error instanceof UsageError ? 2 : 1;
  } finally {
    await db.$disconnect();
    await server.stop();
  }
}

function printUsage(commands: CliCommand[]): void {
  console.log('Usage: npm run admin -- <command> [--option value ...] [--json]\n');
  for (const command of commands) {
    console.log(`  ${command.name.padEnd(30)} ${command.summary}`);
    for (const [name, option] of Object.entries(command.options)) {
      console.log(`      --${name.padEnd(24)} ${option.description}${option.required ? ' (required)' : ''}`);
    }
  }
}
