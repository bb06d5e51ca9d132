/** Entry point of the admin command-line tool (see src/operations/cli/run-cli.ts). */
import { credentialCommands } from '../src/operations/cli/credential-commands';
import { webhookCommands } from '../src/operations/cli/webhook-commands';
import { guaranteeCommands, ledgerCommands } from '../src/operations/cli/guarantee-commands';
import { runCli } from '../src/operations/cli/run-cli';

/** Every command of the admin tool; the back-office ones (issue #5) mirror the operations API. */
const ADMIN_COMMANDS = [...credentialCommands, ...guaranteeCommands, ...ledgerCommands, ...webhookCommands];

runCli(process.argv.slice(2), ADMIN_COMMANDS)
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
