/**
 * The rules between settings that the schema of each one (config.ts) cannot state: each broken one
 * is a line of the ConfigError that stops the service at start-up.
 */
import type { Config, ConfigPurpose } from './config';

export function conflictsOf(config: Config, purpose: ConfigPurpose): string[] {
  const problems: string[] = [];
  // Each router answers every path under its base path, so no base path may equal or contain
  // another (the health probes live under /health).
  const paths: Array<[string, string]> = [
    ['API_BASE_PATH', config.API_BASE_PATH],
    ['BACK_OFFICE_BASE_PATH', config.BACK_OFFICE_BASE_PATH],
    ['AUTH_BASE_PATH', config.AUTH_BASE_PATH],
    ['the health probes', '/health'],
  ];
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
  if (config.DATABASE_DIRECT_URL && !config.DATABASE_URL) problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the embedded server has no pooler)');
  return problems;
}
