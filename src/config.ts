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
  /** Back office (issue #5): base path of the internal operations API (openapi/operations.yaml). */
  OPERATIONS_BASE_PATH: string;
  DATABASE_URL?: string;
  DATABASE_POOL_MAX: number;
  /** How long a request waits for a free pooled connection before it is answered 503. */
  DATABASE_POOL_WAIT_MS: number;
  EMBEDDED_DB_DIR: string;
  EMBEDDED_DB_PORT: number;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  IDEMPOTENCY_LOCK_SECONDS: number;
  IDEMPOTENCY_RETENTION_HOURS: number;
  DEMO_CREDENTIAL: boolean;
  /** Pause between scheduler runs in this process; 0 = this process runs no scheduler. */
  SCHEDULER_INTERVAL_MS: number;
  /** Most guarantees one scheduler run changes per kind of transition. */
  SCHEDULER_BATCH_SIZE: number;
  /** An approved proposal expires this many days after its approval. */
  PROPOSAL_VALIDITY_DAYS: number;
  /** A terminated guarantee is archived this many days after its termination. */
  ARCHIVE_AFTER_DAYS: number;
  /** Sandbox only: how long a guarantee stays under_review before the sandbox reviewer decides. */
  SANDBOX_REVIEW_DELAY_SECONDS: number;
  /** Sandbox only: wait after accept before the envelope is ready, and again before the signers answer. */
  SANDBOX_SIGNING_DELAY_SECONDS: number;
  /** Sandbox only: validity of a proposal whose rentalAmount ends in .04. */
  SANDBOX_PROPOSAL_VALIDITY_SECONDS: number;
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
    OPERATIONS_BASE_PATH: { ...basePath, default: '/operations' }, // back office (issue #5)
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_POOL_MAX: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    DATABASE_POOL_WAIT_MS: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
    EMBEDDED_DB_DIR: { type: 'string', minLength: 1, default: '.data/postgres' },
    EMBEDDED_DB_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 54329 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    IDEMPOTENCY_LOCK_SECONDS: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
    IDEMPOTENCY_RETENTION_HOURS: { type: 'integer', minimum: 1, maximum: 720, default: 24 },
    DEMO_CREDENTIAL: { type: 'boolean', default: false },
    SCHEDULER_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 5000 },
    SCHEDULER_BATCH_SIZE: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 },
    PROPOSAL_VALIDITY_DAYS: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
    ARCHIVE_AFTER_DAYS: { type: 'integer', minimum: 0, maximum: 36_500, default: 365 },
    SANDBOX_REVIEW_DELAY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 5 },
    SANDBOX_SIGNING_DELAY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 5 },
    SANDBOX_PROPOSAL_VALIDITY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 60 },
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
  // Back office (issue #5): the partner and operations routers each answer every path under their
  // base path, so neither base path may equal or contain the other.
  const config = input as unknown as Config;
  const [api, ops] = [config.API_BASE_PATH, config.OPERATIONS_BASE_PATH];
  if (api === ops || api.startsWith(`${ops}/`) || ops.startsWith(`${api}/`)) {
    throw new ConfigError(`Invalid configuration:\n  - OPERATIONS_BASE_PATH must not equal or nest with API_BASE_PATH (${ops}, ${api})`);
  }
  return config;
}
