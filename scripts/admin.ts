/** Entry point of the admin command-line tool (see src/back-office/cli/run-cli.ts). */
import { credentialCommands } from '../src/back-office/cli/credential-commands';
import { documentCommands } from '../src/back-office/cli/document-commands';
import { webhookCommands } from '../src/back-office/cli/webhook-commands';
import { requestLogCommands } from '../src/back-office/cli/request-log-commands';
import { guaranteeCommands, ledgerCommands } from '../src/back-office/cli/guarantee-commands';
import { runCli } from '../src/back-office/cli/run-cli';
import { peopleCommands } from '../src/back-office/cli/people-commands';

/** Every command of the admin tool; the back-office ones (issue #5) mirror the back-office API. */
const ADMIN_COMMANDS = [
  ...credentialCommands,
  ...peopleCommands,
  ...guaranteeCommands,
  ...ledgerCommands,
  ...webhookCommands,
  ...requestLogCommands,
  ...documentCommands,
];

runCli(process.argv.slice(2), ADMIN_COMMANDS)
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
