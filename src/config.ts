/**
 * Service configuration: environment variables, validated once at start-up so that a bad value
 * stops the service with a message naming it. The settings themselves are declared once in
 * config-settings.ts; here they are read, checked against their declarations and against each
 * other (crossProblems), and handed out as one typed `Config`.
 */
import Ajv, { type ValidateFunction } from 'ajv';
import { schemaOf } from './config-declaration';
import { SETTINGS, type Config } from './config-settings';

export { CONFIG_SECTIONS, SETTINGS, type Config } from './config-settings';

const schema = schemaOf(SETTINGS);
const KEYS = Object.keys(SETTINGS);

export class ConfigError extends Error {}

/**
 * What the configuration is for: the service needs everything; the admin tool (`admin`) reads no
 * public origin and seals no webhook secret, so production does not ask it for them (the webhook
 * key then stays out of back-office shells).
 */
export type ConfigPurpose = 'service' | 'admin';

/** The settings' validator, compiled at the first loadConfig (an app, a test's second app, the admin tool) and kept. */
let validateSettings: ValidateFunction | undefined;

/** Reads the known variables from `env`; empty strings count as unset. Throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, purpose: ConfigPurpose = 'service'): Config {
  const input: Record<string, string> = {};
  for (const key of KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  validateSettings ??= new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true }).compile(schema);
  const validate = validateSettings;
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath.slice(1) || 'config'} ${error.message}`);
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  const config = input as unknown as Config;
  const problems = crossProblems(config, purpose);
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}

/** What no single setting's schema can say: rules between settings. */
function crossProblems(config: Config, purpose: ConfigPurpose): string[] {
  // Each router answers every path under its base path, so no base path may equal or contain
  // another (the health probes live under /health).
  const paths: Array<[string, string]> = [
    ['API_BASE_PATH', config.API_BASE_PATH],
    ['BACK_OFFICE_BASE_PATH', config.BACK_OFFICE_BASE_PATH],
    ['CONSOLE_BASE_PATH', config.CONSOLE_BASE_PATH],
    ['AUTH_BASE_PATH', config.AUTH_BASE_PATH],
    ['the health probes', '/health'],
  ];
  const problems: string[] = [];
  for (const [i, [nameA, a]] of paths.entries()) {
    for (const [nameB, b] of paths.slice(i + 1)) {
      if (a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`)) problems.push(`${nameA} must not equal or nest with ${nameB} (${a}, ${b})`);
    }
  }
  // Without it, links, Location and the published document's servers would follow each request's
  // Host header, which a caller controls: fine on a developer's sandbox, never in production.
  const serving = purpose === 'service';
  if (serving && config.ENVIRONMENT === 'production' && !config.PUBLIC_ORIGIN) problems.push('PUBLIC_ORIGIN is required in production');
  // The sandbox derives a fixed key (its secrets protect nothing real); production must not.
  if (serving && config.ENVIRONMENT === 'production' && !config.WEBHOOK_SECRET_KEY) problems.push('WEBHOOK_SECRET_KEY is required in production');
  // Loopback webhooks are for a sandbox on the partner's own machine; in production they would reach the service's host.
  if (config.ENVIRONMENT === 'production' && config.WEBHOOK_ALLOW_LOOPBACK) problems.push('WEBHOOK_ALLOW_LOOPBACK is for the sandbox only');
  // Node refuses a request timeout shorter than the headers timeout.
  if (config.HTTP_REQUEST_TIMEOUT_MS < config.HTTP_HEADERS_TIMEOUT_MS)
    problems.push('HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS');
  if (config.ANSWER_BYTES_PER_AGENCY > config.ANSWER_BYTES_IN_FLIGHT) problems.push('ANSWER_BYTES_PER_AGENCY must be at most ANSWER_BYTES_IN_FLIGHT');
  if (config.DATABASE_DIRECT_URL && !config.DATABASE_URL) problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the embedded server has no pooler)');
  return problems;
}
