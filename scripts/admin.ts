/** Entry point of the admin command-line tool (see src/operations/cli/run-cli.ts). */
import { createCredentialCommand } from '../src/operations/cli/credential-commands';
import { runCli } from '../src/operations/cli/run-cli';

runCli(process.argv.slice(2), [createCredentialCommand])
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
