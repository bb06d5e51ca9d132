#!/usr/bin/env node
/**
 * partner-conformance: walks the partner journey against a sandbox deployment of the Rental
 * Guarantee Partner API with the partner's own credentials, validates every response (status,
 * headers, body) against the published contract, prints a readable report and writes JUnit XML.
 * Exit code: 0 every step passed, 1 a step failed, 2 the run could not start (usage, contract).
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { Contract } from './contract.js';
import { documentSteps } from './document-steps.js';
import { financialSteps } from './financial-steps.js';
import { guaranteeSteps } from './guarantee-steps.js';
import { lifecycleSteps } from './lifecycle-steps.js';
import { footer, header, junitXml, Redactor, stepLine } from './report.js';
import { Session } from './session.js';
import { runSteps, type JourneyState } from './steps.js';
import { tokenStep } from './token-step.js';

const USAGE = `Usage: partner-conformance --base-url <{base_url}> --auth-url <{auth_url}> --client-id <id> [options]

  --base-url         API base address, e.g. https://sandbox.api.rentalguarantee.example/rental-guarantee
  --auth-url         OAuth base address, e.g. https://sandbox.auth.rentalguarantee.example/auth
  --client-id        a sandbox client ID (sbx_...): the kit creates guarantees, so production is refused
  --client-secret    its secret; better: leave it out and set RG_CLIENT_SECRET (command lines are visible
                     to other processes). Never printed, not even in failures.
  --contract         the contract to validate against: a file or URL (default: {base_url}/openapi.json)
  --junit            where to write the JUnit XML report (default: conformance-report.xml)
  --sandbox-timeout  seconds to wait for each sandbox step (review, signing); default 120
  --poll-interval    seconds between polls; default 2
`;

const redactor = new Redactor();

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      'base-url': { type: 'string' },
      'auth-url': { type: 'string' },
      'client-id': { type: 'string' },
      'client-secret': { type: 'string' },
      contract: { type: 'string' },
      junit: { type: 'string', default: 'conformance-report.xml' },
      'sandbox-timeout': { type: 'string', default: '120' },
      'poll-interval': { type: 'string', default: '2' },
      help: { type: 'boolean', default: false },
    },
  });
  const baseUrl = values['base-url']?.replace(/\/+$/, '');
  const authUrl = values['auth-url'];
  const clientId = values['client-id'];
  const clientSecret = values['client-secret'] ?? process.env['RG_CLIENT_SECRET'];
  // --help is a question, not a mistake: usage on stdout and 0, so a CI step can check the install.
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  if (!baseUrl || !authUrl || !clientId || !clientSecret) {
    console.error(
      `missing ${['base-url', 'auth-url', 'client-id']
        .filter((name) => !values[name as 'base-url'])
        .map((name) => `--${name}`)
        .concat(clientSecret ? [] : ['--client-secret (or RG_CLIENT_SECRET)'])
        .join(', ')}\n\n${USAGE}`,
    );
    return 2;
  }
  if (clientId.startsWith('prd_')) {
    console.error(
      'partner-conformance: refused: this is a production client ID. The kit creates and accepts guarantees; run it against the sandbox with sbx_ credentials.',
    );
    return 2;
  }
  redactor.add(clientSecret);
  const say = (text: string) => console.log(redactor.redact(text));

  const sandboxTimeout = Number(values['sandbox-timeout']);
  const pollInterval = Number(values['poll-interval']);
  if (!(sandboxTimeout > 0) || !(pollInterval > 0)) {
    console.error(`--sandbox-timeout and --poll-interval must be positive numbers of seconds\n\n${USAGE}`);
    return 2;
  }
  const contractSource = values.contract ?? `${baseUrl}/openapi.json`;
  let contract: Contract;
  try {
    contract = await Contract.load(contractSource);
  } catch (error) {
    console.error(`partner-conformance: cannot read the contract ${contractSource}: ${error instanceof Error ? error.message : String(error)}`);
    return 2;
  }
  const session = new Session(baseUrl, contract);
  const state: JourneyState = {
    runId: `conf-${randomUUID().slice(0, 13)}`,
    grantedScopes: [],
    sandboxTimeoutMs: sandboxTimeout * 1000,
    pollIntervalMs: pollInterval * 1000,
  };
  const started = Date.now();
  const meta = { title: contract.title, contractVersion: contract.version, contractSource, baseUrl };
  say(header(meta));
  let index = 0;
  const steps = [tokenStep({ authUrl, clientId, clientSecret }), ...guaranteeSteps, ...documentSteps, ...lifecycleSteps, ...financialSteps];
  const records = await runSteps(steps, session, state, (record) => {
    redactor.add(session.token);
    say(stepLine(record, index++));
  });
  const summary = { ...meta, records, durationMs: Date.now() - started };
  say(footer(summary));
  fs.writeFileSync(values.junit, redactor.redact(junitXml(summary)));
  say(`JUnit XML: ${values.junit}`);
  return records.some((record) => record.outcome === 'failed') ? 1 : 0;
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error: unknown) => {
    console.error(redactor.redact(`partner-conformance: ${error instanceof Error ? error.message : String(error)}`));
    process.exit(2);
  });
