/**
 * The admin tool run in-process against a test file's database: what it prints (stdout and stderr
 * together) and its exit code, with DATABASE_URL (and any other variable given; undefined unsets it)
 * set for the run only. A test file that uses it also stubs src/database/embedded-server (ESM-only,
 * which Jest's CommonJS sandbox cannot load): with DATABASE_URL set the tool never starts one.
 */
import type { CliCommand } from '../../src/back-office/cli/cli-command';
import { runCli } from '../../src/back-office/cli/run-cli';

export async function runAdminTool(
  databaseUrl: string,
  commands: CliCommand[],
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; printed: string }> {
  const printed: string[] = [];
  const keep = (line: unknown) => void printed.push(String(line));
  const log = jest.spyOn(console, 'log').mockImplementation(keep);
  const error = jest.spyOn(console, 'error').mockImplementation(keep);
  const previous = Object.fromEntries(['DATABASE_URL', ...Object.keys(env)].map((name) => [name, process.env[name]]));
  const setAll = (values: Record<string, string | undefined>) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  setAll({ DATABASE_URL: databaseUrl, ...env });
  try {
    return { code: await runCli(args, commands), printed: printed.join('\n') };
  } finally {
    setAll(previous);
    log.mockRestore();
    error.mockRestore();
  }
}
