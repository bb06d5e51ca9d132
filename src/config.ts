/**
 * Service configuration: environment variables, validated once at start-up against a JSON schema
 * (Ajv coerces numbers and applies defaults) so that a bad value stops the service with a clear message.
 */
import Ajv from 'ajv';

export interface Config {
  ENVIRONMENT: 'sandbox' | 'production';
  HOST: string;
  PORT: number;
  PUBLIC_ORIGIN?: string;
  API_BASE_PATH: string;
  AUTH_BASE_PATH: string;
  DATABASE_URL?: string;
  DATABASE_POOL_MAX: number;
  EMBEDDED_DB_DIR: string;
  EMBEDDED_DB_PORT: number;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  IDEMPOTENCY_LOCK_SECONDS: number;
  IDEMPOTENCY_RETENTION_HOURS: number;
  DEMO_CREDENTIAL: boolean;
}

const basePath = { type: 'string', pattern: '^(/[A-Za-z0-9._~-]+)+$' } as const;

const schema = {
  type: 'object',
  properties: {
    ENVIRONMENT: { enum: ['sandbox', 'production'], default: 'sandbox' },
    HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 3000 },
    PUBLIC_ORIGIN: { type: 'string', pattern: '^https?://[^/]+$' },
    API_BASE_PATH: { ...basePath, default: '/rental-guarantee' },
    AUTH_BASE_PATH: { ...basePath, default: '/auth' },
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_MAX: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    EMBEDDED_DB_DIR: { type: 'string', minLength: 1, default: '.data/postgres' },
    EMBEDDED_DB_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 54329 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    IDEMPOTENCY_LOCK_SECONDS: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
    IDEMPOTENCY_RETENTION_HOURS: { type: 'integer', minimum: 1, maximum: 720, default: 24 },
    DEMO_CREDENTIAL: { type: 'boolean', default: false },
  },
} as const;

const KEYS = Object.keys(schema.properties);

export class ConfigError extends Error {}

/** Reads the known variables from `env`; empty strings count as unset. Throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const input: Record<string, string> = {};
  for (const key of KEYS) {
    const value = env[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const ajv = new Ajv({ coerceTypes: true, useDefaults: true, allErrors: true });
  const validate = ajv.compile(schema);
  if (!validate(input)) {
    const problems = (validate.errors ?? []).map((error) => `${error.instancePath.slice(1) || 'config'} ${error.message}`);
    throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return input as unknown as Config;
}
