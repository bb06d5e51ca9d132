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
  /** Back office (issue #5): base path of the internal back-office API (openapi/back-office.yaml). */
  BACK_OFFICE_BASE_PATH: string;
  DATABASE_URL?: string;
  /**
   * A session connection (the database itself, or a session-mode pool) for what a transaction
   * pooler cannot carry: migrations, LISTEN, the job queue. Unset: DATABASE_URL.
   */
  DATABASE_DIRECT_URL?: string;
  /**
   * Whether the pool's statements are kept prepared under a name (statement-cache.ts): `auto` names
   * them only when DATABASE_URL is the direct connection (DATABASE_DIRECT_URL unset or equal), since
   * a transaction pooler hands one server connection to several clients.
   */
  DATABASE_STATEMENT_CACHE: 'auto' | 'on' | 'off';
  /** A streaming replica of the database: the reads that may use it do when it is current (database/replica-reads.ts). */
  DATABASE_REPLICA_URL?: string;
  /** How long such a read waits for the replica to replay the writes committed before it; past it, the primary answers. */
  DATABASE_REPLICA_MAX_LAG_MS: number;
  DATABASE_POOL_MAX: number;
  /** How long a request waits for a free pooled connection before it is answered 503. */
  DATABASE_POOL_WAIT_MS: number;
  EMBEDDED_DB_DIR: string;
  EMBEDDED_DB_PORT: number;
  LOG_LEVEL: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  IDEMPOTENCY_LOCK_SECONDS: number;
  /** Server timeouts against slow clients: headers, whole request, idle keep-alive connection. */
  HTTP_HEADERS_TIMEOUT_MS: number;
  HTTP_REQUEST_TIMEOUT_MS: number;
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number;
  /** How long a graceful stop lets requests in flight finish before closing what is left. */
  SHUTDOWN_GRACE_MS: number;
  /** Requests per credential per window (0: no quota), what a tenant name search counts, and how many run at once per credential. */
  RATE_LIMIT_REQUESTS: number;
  RATE_LIMIT_WINDOW_SECONDS: number;
  RATE_LIMIT_SEARCH_COST: number;
  RATE_LIMIT_SEARCH_CONCURRENCY: number;
  /** Redis (`redis://…`) where every host counts the API quota; unset: each host counts its own (in memory). */
  RATE_LIMIT_REDIS_URL?: string;
  /** Service processes on this host (node:cluster); 1 runs one process without a primary. */
  WEB_CONCURRENCY: number;
  /** Where GET /metrics listens (Prometheus); port 0 turns it off. Never a partner-facing address. */
  METRICS_HOST: string;
  METRICS_PORT: number;
  /** Comments an agency may add per calendar day (America/Sao_Paulo); beyond it, 429 comment_quota_exceeded. */
  COMMENT_QUOTA_PER_DAY: number;
  /**
   * Where documents' bytes go (docs/documents.md): unset, PostgreSQL (a table of their own); an
   * S3-compatible object store as `s3://<bucket>[/<prefix>][?endpoint=<url>&region=<region>]`, its
   * credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the SDK's other sources).
   */
  DOCUMENT_STORE_URL?: string;
  /** Bytes of documents an agency may upload per calendar day (America/Sao_Paulo); beyond it, 429 document_quota_exceeded. */
  DOCUMENT_BYTES_PER_AGENCY_PER_DAY: number;
  /** Days after a guarantee is archived when its documents' bytes are deleted (their names and digests stay in the history). */
  DOCUMENT_RETENTION_DAYS: number;
  /** Access tokens whose principal this process keeps in memory; 0 = none (every request reads its token). */
  TOKEN_CACHE_SIZE: number;
  IDEMPOTENCY_RETENTION_HOURS: number;
  /** Write responses one agency may have stored within the retention window; beyond it, 429 idempotency_quota_exceeded. */
  IDEMPOTENCY_RECORDS_PER_AGENCY: number;
  DEMO_CREDENTIAL: boolean;
  WEBHOOK_ALLOW_LOOPBACK: boolean;
  /** Token endpoint: failed client authentications from one source address within the window before it is locked out. */
  TOKEN_FAILURES_PER_ADDRESS: number;
  /** Token endpoint: failed client authentications of one client ID (from any address) within the window before it is locked out. */
  TOKEN_FAILURES_PER_CLIENT: number;
  /** Token endpoint: the window (seconds) in which failed authentications are counted. */
  TOKEN_FAILURE_WINDOW_SECONDS: number;
  /** Token endpoint: how long (seconds) a locked-out address or client ID is answered 429. */
  TOKEN_LOCKOUT_SECONDS: number;
  /** Token endpoint: how long (ms) a request of a locked-out address or client ID is held before its 429. */
  TOKEN_LOCKOUT_ANSWER_DELAY_MS: number;
  /** Token endpoint: an address that authenticated a client ID within these days is exempt from that client ID's lockout; 0 = none. */
  TOKEN_KNOWN_ADDRESS_DAYS: number;
  /** Proxies whose X-Forwarded-For is believed (Express `trust proxy`): comma-separated addresses, subnets or loopback/linklocal/uniquelocal. */
  TRUST_PROXY?: string;
  /** The agency request log (GET /v1/request-log): `off` records no new line (the operation still lists what is kept). */
  REQUEST_LOG: 'on' | 'off';
  /** How long a line waits in this process's buffer before its batch is written (write-behind). */
  REQUEST_LOG_FLUSH_MS: number;
  /** Lines kept per agency (its latest); older ones are pruned, as are lines older than 7 days. */
  REQUEST_LOG_LINES_PER_AGENCY: number;
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
  /** Webhooks: AES-256-GCM key (base64 of 32 bytes) of the endpoints' secrets at rest; required in production. */
  WEBHOOK_SECRET_KEY?: string;
  /** Webhook deliveries this process makes at once (pg-boss workers); 0 = this process delivers nothing. */
  WEBHOOK_DELIVERY_CONCURRENCY: number;
  /** Of those, how many one agency's deliveries may take at once (its share: others' slow receivers cost it nothing). */
  WEBHOOK_AGENCY_CONCURRENCY: number;
  /** Of an agency's, how many one endpoint's attempts may take at once, across all processes (a slow receiver costs only itself). */
  WEBHOOK_ENDPOINT_CONCURRENCY: number;
  /** Delays (ms) between a failed attempt and the next one, comma-separated; one attempt more than delays. */
  WEBHOOK_RETRY_SCHEDULE_MS: string;
  /** An endpoint whose every attempt failed for this many days is disabled. */
  WEBHOOK_DISABLE_AFTER_DAYS: number;
  /** Timeout of one delivery attempt. */
  WEBHOOK_TIMEOUT_MS: number;
  /** A delivery job whose process sent no heartbeat for this long is attempted again (pg-boss's minimum is 10). */
  WEBHOOK_HEARTBEAT_SECONDS: number;
  /** How often the job queue's supervision (lost heartbeats, expiry) runs, shared by every process. */
  WEBHOOK_SUPERVISE_SECONDS: number;
}

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h: 11 attempts over about 24 hours (documented in partner.yaml). */
const DEFAULT_RETRY_SCHEDULE = '5000,30000,120000,600000,1800000,3600000,7200000,14400000,28800000,28800000';

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
    BACK_OFFICE_BASE_PATH: { ...basePath, default: '/back-office' }, // back office (issue #5)
    DATABASE_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_DIRECT_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_STATEMENT_CACHE: { enum: ['auto', 'on', 'off'], default: 'auto' },
    DATABASE_REPLICA_URL: { type: 'string', pattern: '^postgres(ql)?://' },
    DATABASE_REPLICA_MAX_LAG_MS: { type: 'integer', minimum: 0, maximum: 10_000, default: 20 },
    DATABASE_POOL_MAX: { type: 'integer', minimum: 1, maximum: 200, default: 10 },
    DATABASE_POOL_WAIT_MS: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
    EMBEDDED_DB_DIR: { type: 'string', minLength: 1, default: '.data/postgres' },
    EMBEDDED_DB_PORT: { type: 'integer', minimum: 1, maximum: 65535, default: 54329 },
    LOG_LEVEL: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    IDEMPOTENCY_LOCK_SECONDS: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
    HTTP_HEADERS_TIMEOUT_MS: { type: 'integer', minimum: 1000, maximum: 120_000, default: 10_000 },
    HTTP_REQUEST_TIMEOUT_MS: { type: 'integer', minimum: 1000, maximum: 600_000, default: 30_000 },
    HTTP_KEEP_ALIVE_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 600_000, default: 5_000 },
    SHUTDOWN_GRACE_MS: { type: 'integer', minimum: 0, maximum: 120_000, default: 10_000 },
    RATE_LIMIT_REQUESTS: { type: 'integer', minimum: 0, maximum: 10_000_000, default: 1200 },
    RATE_LIMIT_WINDOW_SECONDS: { type: 'integer', minimum: 1, maximum: 86_400, default: 60 },
    RATE_LIMIT_SEARCH_COST: { type: 'integer', minimum: 1, maximum: 10_000, default: 10 },
    RATE_LIMIT_SEARCH_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 100, default: 2 },
    RATE_LIMIT_REDIS_URL: { type: 'string', pattern: '^rediss?://' },
    WEB_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 64, default: 1 },
    METRICS_HOST: { type: 'string', minLength: 1, default: '127.0.0.1' },
    METRICS_PORT: { type: 'integer', minimum: 0, maximum: 65535, default: 9464 },
    COMMENT_QUOTA_PER_DAY: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 5000 },
    DOCUMENT_STORE_URL: { type: 'string', pattern: '^s3://[^/?#]+' },
    DOCUMENT_BYTES_PER_AGENCY_PER_DAY: { type: 'integer', minimum: 1, maximum: 1_099_511_627_776, default: 1_073_741_824 },
    DOCUMENT_RETENTION_DAYS: { type: 'integer', minimum: 1, maximum: 36_500, default: 1825 },
    TOKEN_CACHE_SIZE: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 10_000 },
    IDEMPOTENCY_RETENTION_HOURS: { type: 'integer', minimum: 1, maximum: 720, default: 24 },
    IDEMPOTENCY_RECORDS_PER_AGENCY: { type: 'integer', minimum: 1, maximum: 100_000_000, default: 500_000 },
    DEMO_CREDENTIAL: { type: 'boolean', default: false },
    WEBHOOK_ALLOW_LOOPBACK: { type: 'boolean', default: false },
    TOKEN_FAILURES_PER_ADDRESS: { type: 'integer', minimum: 1, maximum: 100_000, default: 20 },
    TOKEN_FAILURES_PER_CLIENT: { type: 'integer', minimum: 1, maximum: 100_000, default: 10 },
    TOKEN_FAILURE_WINDOW_SECONDS: { type: 'integer', minimum: 1, maximum: 86_400, default: 600 },
    TOKEN_LOCKOUT_SECONDS: { type: 'integer', minimum: 1, maximum: 86_400, default: 900 },
    TOKEN_LOCKOUT_ANSWER_DELAY_MS: { type: 'integer', minimum: 0, maximum: 10_000, default: 1000 },
    TOKEN_KNOWN_ADDRESS_DAYS: { type: 'integer', minimum: 0, maximum: 365, default: 7 },
    TRUST_PROXY: { type: 'string', pattern: '^[0-9A-Za-z.:/]+( *, *[0-9A-Za-z.:/]+)*$' },
    REQUEST_LOG: { enum: ['on', 'off'], default: 'on' },
    REQUEST_LOG_FLUSH_MS: { type: 'integer', minimum: 10, maximum: 60_000, default: 1000 },
    REQUEST_LOG_LINES_PER_AGENCY: { type: 'integer', minimum: 1, maximum: 10_000_000, default: 100_000 },
    SCHEDULER_INTERVAL_MS: { type: 'integer', minimum: 0, maximum: 3_600_000, default: 5000 },
    SCHEDULER_BATCH_SIZE: { type: 'integer', minimum: 1, maximum: 10_000, default: 100 },
    PROPOSAL_VALIDITY_DAYS: { type: 'integer', minimum: 1, maximum: 3650, default: 30 },
    ARCHIVE_AFTER_DAYS: { type: 'integer', minimum: 0, maximum: 36_500, default: 365 },
    SANDBOX_REVIEW_DELAY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 5 },
    SANDBOX_SIGNING_DELAY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 5 },
    SANDBOX_PROPOSAL_VALIDITY_SECONDS: { type: 'integer', minimum: 0, maximum: 86_400, default: 60 },
    WEBHOOK_SECRET_KEY: { type: 'string', pattern: '^[A-Za-z0-9+/]{43}=$' },
    WEBHOOK_DELIVERY_CONCURRENCY: { type: 'integer', minimum: 0, maximum: 200, default: 10 },
    WEBHOOK_AGENCY_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 200, default: 3 },
    WEBHOOK_ENDPOINT_CONCURRENCY: { type: 'integer', minimum: 1, maximum: 200, default: 2 },
    WEBHOOK_RETRY_SCHEDULE_MS: { type: 'string', pattern: '^[0-9]{1,9}(,[0-9]{1,9}){0,29}$', default: DEFAULT_RETRY_SCHEDULE },
    WEBHOOK_DISABLE_AFTER_DAYS: { type: 'integer', minimum: 1, maximum: 365, default: 5 },
    WEBHOOK_TIMEOUT_MS: { type: 'integer', minimum: 100, maximum: 60_000, default: 10_000 },
    WEBHOOK_HEARTBEAT_SECONDS: { type: 'integer', minimum: 10, maximum: 600, default: 30 },
    WEBHOOK_SUPERVISE_SECONDS: { type: 'integer', minimum: 1, maximum: 600, default: 30 },
  },
} as const;

const KEYS = Object.keys(schema.properties);

export class ConfigError extends Error {}

/**
 * What the configuration is for: the service needs everything; the admin tool (`admin`) reads no
 * public origin and seals no webhook secret, so production does not ask it for them (the webhook
 * key then stays out of back-office shells).
 */
export type ConfigPurpose = 'service' | 'admin';

/** Reads the known variables from `env`; empty strings count as unset. Throws ConfigError listing every problem. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, purpose: ConfigPurpose = 'service'): Config {
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
  // Each router answers every path under its base path, so no base path may equal or contain
  // another (the health probes live under /health).
  const config = input as unknown as Config;
  const paths: Array<[string, string]> = [
    ['API_BASE_PATH', config.API_BASE_PATH],
    ['BACK_OFFICE_BASE_PATH', config.BACK_OFFICE_BASE_PATH],
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
  if (config.DATABASE_DIRECT_URL && !config.DATABASE_URL) problems.push('DATABASE_DIRECT_URL needs DATABASE_URL (the embedded server has no pooler)');
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
  return config;
}
