/**
 * Every setting of the service, declared ONCE (kind, bounds, default, meaning), by section: the
 * `Config` type, the validation (config.ts) and docs/configuration.md all come from these
 * declarations (config-declaration.ts; `make generate` writes the doc, `make check` fails when it
 * is out of date). To add a setting, add one entry to the section it belongs to.
 */
import { choice, flag, integer, text, type ConfigOf, type Settings } from './config-declaration';

const basePath = { pattern: '^(/[A-Za-z0-9._~-]+)+$', accepts: 'a path: `/segment[/segment…]`' };
const postgresUrl = { pattern: '^postgres(ql)?://', accepts: '`postgres://…` or `postgresql://…`' };

const service = {
  ENVIRONMENT: choice(['sandbox', 'production'], {
    default: 'sandbox',
    meaning:
      'Prefixes client IDs and tokens (`sbx_`/`prd_`); the sandbox adds the sandbox reviewer, time travel and the request console of the reference page (docs/sandbox.md)',
  }),
  HOST: text({ default: '127.0.0.1', meaning: 'Listen address' }),
  PORT: integer({ default: 3000, min: 0, max: 65535, meaning: 'Listen port' }),
  PUBLIC_ORIGIN: text({
    pattern: '^https?://[^/]+$',
    accepts: '`https://host[:port]`',
    unset: "from the request's `Host` (sandbox only)",
    meaning:
      "Public origin (`https://api.example.com`) used in links, `Location` and the published document. **Required in production** by the service (not by the admin tool, which builds no link): without it links would follow each request's `Host` header, which the caller controls",
  }),
  API_BASE_PATH: text({ ...basePath, default: '/rental-guarantee', meaning: '`{base_url}` path prefix of the partner API' }),
  AUTH_BASE_PATH: text({ ...basePath, default: '/auth', meaning: '`{auth_url}` path prefix of the token endpoint' }),
  BACK_OFFICE_BASE_PATH: text({
    ...basePath,
    default: '/back-office',
    meaning: 'Path prefix of the internal back-office API (`openapi/back-office.yaml`)',
  }),
  TRUST_PROXY: text({
    pattern: '^[0-9A-Za-z.:/]+( *, *[0-9A-Za-z.:/]+)*$',
    accepts: 'comma-separated addresses, subnets or names',
    unset: 'none',
    meaning:
      "Proxies whose `X-Forwarded-For` gives the client's address (Express `trust proxy`: comma-separated addresses, subnets, or `loopback`, `linklocal`, `uniquelocal`). Set it behind a load balancer, or the token endpoint counts every partner's failures under the balancer's address. With tracing on, only a request from one of them has its `traceparent` continued ([tracing](tracing.md)); others' are only linked",
  }),
  WEB_CONCURRENCY: integer({
    default: 1,
    min: 1,
    max: 64,
    meaning:
      'Service processes on this host (node:cluster: a primary and this many workers on one port; docs/deployment.md); 1 runs one process without a primary',
  }),
  METRICS_HOST: text({
    default: '127.0.0.1',
    meaning: 'Where `GET /metrics` (Prometheus) listens. A listener of its own, never a partner-facing address',
  }),
  METRICS_PORT: integer({ default: 9464, min: 0, max: 65535, meaning: 'Port of `GET /metrics`; `0` turns it off' }),
  HTTP_HEADERS_TIMEOUT_MS: integer({
    default: 10_000,
    min: 1000,
    max: 120_000,
    meaning: "A client that has not sent its headers in time gets `408 request_timeout` and its connection closed (Node's default would be 60 s)",
  }),
  HTTP_REQUEST_TIMEOUT_MS: integer({
    default: 30_000,
    min: 1000,
    max: 600_000,
    meaning: "The same for the whole request (Node's default would be 300 s); at least `HTTP_HEADERS_TIMEOUT_MS`",
  }),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: integer({ default: 5000, min: 100, max: 600_000, meaning: 'An idle keep-alive connection is closed after this long' }),
  HTTP_SOCKET_IDLE_TIMEOUT_MS: integer({
    default: 60_000,
    min: 1000,
    max: 600_000,
    meaning:
      'A connection on which nothing is read or written for this long is closed (a client that stopped reading its answer cannot pin memory); keep it above the slowest operation, since it also bounds a request answered in silence ([hardening](hardening.md))',
  }),
  SHUTDOWN_GRACE_MS: integer({
    default: 10_000,
    min: 0,
    max: 120_000,
    meaning:
      'On SIGTERM (or SIGINT) readiness turns false and new connections are refused at once; requests in flight get this long to finish (their answers carry `Connection: close`), the scheduler stops between two guarantees, then what is left is closed, the database pool and (last) the embedded PostgreSQL stop. The process exits within this bound plus a few seconds',
  }),
  DEMO_CREDENTIAL: flag({ default: false, note: '`true` with `make start`', meaning: 'Create and print a demo credential at start-up' }),
} satisfies Settings;

const logs = {
  LOG_LEVEL: choice(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
    default: 'info',
    meaning:
      "pino level. Every line written for a request carries its `correlationId`. A database that goes away is logged once per process (`database lost`, level error, with the driver's message as `cause`) and once when it is back (`database regained`, with `downMs` and the number of failures in between); the 503s in between are in the access log only. The access log (one line per request) keeps each URL's path and query parameter names, but never the value of a parameter named like a secret, token, password, key, signature or one-time code (`client_secret`, `access_token`, `password`, `pass`, `api_key`, `private_key`, `sig`, `X-Amz-Signature`, `jwt`, `hmac`, `otp`...: `[redacted]`; the rules are in `src/logger.ts`)",
  }),
  LOG_FORMAT: choice(['auto', 'json', 'pretty'], {
    default: 'auto',
    meaning:
      '`json`: one JSON object per line, for a log collector; `pretty`: one readable, coloured line per entry (pino-pretty); `auto`: `pretty` when standard output is a terminal and `ENVIRONMENT` is not `production`, `json` otherwise (so `make start` in a terminal is readable, and anything piped or deployed gets JSON lines)',
  }),
} satisfies Settings;

const database = {
  DATABASE_URL: text({
    ...postgresUrl,
    unset: 'embedded',
    meaning:
      "PostgreSQL connection string of the requests; several service processes may share one database. May be a transaction-mode pooler (PgBouncer, RDS Proxy, Supavisor, Neon's pooler): then set `DATABASE_DIRECT_URL` too",
  }),
  DATABASE_DIRECT_URL: text({
    ...postgresUrl,
    unset: '`DATABASE_URL`',
    meaning:
      "A session connection (the database itself, or a session-mode pool) for what a transaction pooler cannot carry: the migrations (service and admin tool), the token revocation `LISTEN` and the webhook job queue. Before migrating, the service checks that this connection keeps one PostgreSQL process per client and refuses to migrate through a transaction pooler (which would keep the migration's advisory lock on a pooled connection and block every later migration)",
  }),
  DATABASE_REPLICA_URL: text({
    ...postgresUrl,
    unset: 'none',
    meaning:
      "A streaming replica (PostgreSQL's physical replication) of the database. The reads that may use it do: lists and tenant name searches with their counts, the financial balance, daily summaries and statement entries (`replicaRead` in their operation's definition). A read goes to the replica only once it has replayed every write committed before the read began (the primary's WAL position, then the replica's replay position: two trivial statements), so **a partner sees no staleness**: its own writes, and every write that committed before its request, staff's and other hosts' included. A replica that fails is left alone for 3 seconds, its reads going to the primary (nothing is answered 503 for it)",
  }),
  DATABASE_REPLICA_MAX_LAG_MS: integer({
    default: 20,
    min: 0,
    max: 10_000,
    meaning: 'How long such a read waits for a replica that is behind to catch up; past it, the primary answers. `0`: never wait',
  }),
  DATABASE_STATEMENT_CACHE: choice(['auto', 'on', 'off'], {
    default: 'auto',
    meaning:
      "`on`: the pool's connections keep their parameterised statements prepared under a name (`src/database/statement-cache.ts`); `off`: every statement is sent unnamed, as a transaction pooler needs (a name made on a pooled server connection by one client collides with another's: `42P05`); `auto`: on only when `DATABASE_URL` is the direct connection (`DATABASE_DIRECT_URL` unset or equal). What it costs is in [`bench/results.md`](../bench/results.md)",
  }),
  DATABASE_POOL_MAX: integer({ default: 10, min: 1, max: 200, meaning: 'Connections per process' }),
  DATABASE_POOL_WAIT_MS: integer({
    default: 10_000,
    min: 100,
    max: 60_000,
    meaning:
      'How long a request waits for a free connection, or for room for its answer (`ANSWER_BYTES_IN_FLIGHT`), before it is answered 503 with `Retry-After: 1`',
  }),
  EMBEDDED_DB_DIR: text({ default: '.data/postgres', meaning: 'Data directory of the embedded PostgreSQL (used when `DATABASE_URL` is unset)' }),
  EMBEDDED_DB_PORT: integer({ default: 54329, min: 1, max: 65535, meaning: 'Port of the embedded PostgreSQL' }),
} satisfies Settings;

const limits = {
  RATE_LIMIT_REQUESTS: integer({
    default: 1200,
    min: 0,
    max: 10_000_000,
    meaning:
      "Each credential's quota of requests per window (`0`: no quota); every answer to an accepted token carries `RateLimit-Policy` and `RateLimit`, a spent quota is `429 rate_limited`",
  }),
  RATE_LIMIT_WINDOW_SECONDS: integer({ default: 60, min: 1, max: 86_400, meaning: 'The window of `RATE_LIMIT_REQUESTS`' }),
  RATE_LIMIT_REDIS_URL: text({
    pattern: '^rediss?://',
    accepts: '`redis://…` or `rediss://…`',
    unset: 'each host counts alone',
    meaning:
      "Where every host counts the API quota (rate-limiter-flexible's Redis limiter, one atomic command per request), so that a credential gets `RATE_LIMIT_REQUESTS` once across all hosts. Unset, each host counts alone in memory (its cluster primary counts for its workers). While Redis is unreachable each host counts alone (nothing is refused for the outage), logged once when lost and once when back. What it costs a get is in [`bench/results.md`](../bench/results.md)",
  }),
  RATE_LIMIT_SEARCH_COST: integer({ default: 10, min: 1, max: 10_000, meaning: 'A tenant name search counts this many requests' }),
  RATE_LIMIT_SEARCH_CONCURRENCY: integer({
    default: 2,
    min: 1,
    max: 100,
    meaning: 'At most this many tenant name searches of one credential run at once per process (a process runs at most half its pool of them in all)',
  }),
  RATE_LIMIT_AGENCY_REQUESTS: integer({
    default: 3600,
    min: 0,
    max: 100_000_000,
    meaning:
      "Requests per `RATE_LIMIT_WINDOW_SECONDS` for all the credentials of one agency together (`0`: no agency quota): an agency's quota bounds the agency, however many credentials it holds. `RateLimit-Policy` and `RateLimit` carry it as their `agency` member",
  }),
  RATE_LIMIT_AGENCY_SEARCH_CONCURRENCY: integer({
    default: 4,
    min: 1,
    max: 1000,
    meaning: "Tenant name searches of one agency's credentials running at once in one process",
  }),
  ANONYMOUS_RATE_LIMIT_REQUESTS: integer({
    default: 60,
    min: 0,
    max: 10_000_000,
    meaning:
      "Requests without a token (the published documents, the reference page, the console's sign-in) per window and client address (IPv6 by its /64); beyond, `429 rate_limited` with `Retry-After`; `0`: no quota. Health probes are not counted",
  }),
  ANONYMOUS_RATE_LIMIT_WINDOW_SECONDS: integer({ default: 60, min: 1, max: 86_400, meaning: 'The window of `ANONYMOUS_RATE_LIMIT_REQUESTS`' }),
  CREDENTIALS_PER_AGENCY: integer({
    default: 20,
    min: 1,
    max: 10_000,
    meaning:
      'Active (not revoked) partner credentials one agency may hold; creating one more is `409 credential_limit_reached` (back office and admin tool)',
  }),
  ANSWER_BYTES_IN_FLIGHT: integer({
    default: 12 * 1024 * 1024,
    min: 1024 * 1024,
    max: 1024 * 1024 * 1024,
    meaning:
      "Worst-case bytes (from the contract) of the answers one process makes and writes at once; a request whose answer does not fit waits its turn, then `503 service_unavailable` with `Retry-After` after `DATABASE_POOL_WAIT_MS`. The default fits the 96 MB heap of `npm start` beside the service's own working set ([bounds](bounds.md)); raise it with the heap",
  }),
  ANSWER_BYTES_PER_AGENCY: integer({
    default: 6 * 1024 * 1024,
    min: 1024 * 1024,
    max: 1024 * 1024 * 1024,
    meaning:
      "Of `ANSWER_BYTES_IN_FLIGHT`, what one agency's requests (partner API and director together; the service's staff count as one) may hold, so that one agency's large reads never stall another's. At most `ANSWER_BYTES_IN_FLIGHT`; at least the largest answer (6 MiB) lets every answer run beside others of its agency",
  }),
  IDEMPOTENCY_LOCK_SECONDS: integer({ default: 30, min: 1, max: 600, meaning: 'Documented lock timeout of a key held by a crashed process' }),
  IDEMPOTENCY_RETENTION_HOURS: integer({ default: 24, min: 1, max: 720, meaning: 'How long stored idempotent responses are kept' }),
  IDEMPOTENCY_RECORDS_PER_AGENCY: integer({
    default: 500_000,
    min: 1,
    max: 100_000_000,
    meaning: 'Write responses one agency may have stored within the retention; beyond it a new write is `429 idempotency_quota_exceeded`',
  }),
  COMMENT_QUOTA_PER_DAY: integer({
    default: 5000,
    min: 1,
    max: 10_000_000,
    meaning: 'Comments an agency may add per calendar day (America/Sao_Paulo), across its guarantees; beyond it `429 comment_quota_exceeded`',
  }),
  TOKEN_CACHE_SIZE: integer({
    default: 10_000,
    min: 0,
    max: 1_000_000,
    meaning:
      'Access tokens whose principal (company, credential, scopes) this process keeps in memory; `0` = none, every request reads its token. A revocation evicts them in every process at once (PostgreSQL `NOTIFY`), and a cached principal is served only after a round trip on the listening connection shows that every revocation committed before the request has arrived, so a revoked token is refused on its next request; while the listening connection is down the cache is not used',
  }),
} satisfies Settings;

const tokenEndpoint = {
  TOKEN_FAILURES_PER_ADDRESS: integer({
    default: 20,
    min: 1,
    max: 100_000,
    meaning:
      'Failed client authentications (unknown client ID, wrong or revoked secret) from one source address within the window; the one that reaches it locks the address out. IPv6 addresses count by their /64',
  }),
  TOKEN_FAILURES_PER_CLIENT: integer({
    default: 10,
    min: 1,
    max: 100_000,
    meaning:
      'The same for one client ID, from any address; and for one client ID from one address, a limit that no known address (`TOKEN_KNOWN_ADDRESS_DAYS`) is exempt from',
  }),
  TOKEN_FAILURE_WINDOW_SECONDS: integer({
    default: 600,
    min: 1,
    max: 86_400,
    meaning: 'The window in which failures are counted (it starts at the first failure)',
  }),
  TOKEN_LOCKOUT_SECONDS: integer({
    default: 900,
    min: 1,
    max: 86_400,
    meaning:
      'How long a locked-out address or client ID is answered `429 temporarily_unavailable` with `Retry-After`, without its secret being checked. Counts and lockouts are shared by every process (PostgreSQL table `token_rate_limits`)',
  }),
  TOKEN_LOCKOUT_ANSWER_DELAY_MS: integer({
    default: 1000,
    min: 0,
    max: 10_000,
    meaning:
      'A locked-out request is held this long (at most until the lockout ends) before its 429, so that each connection of a flood sends about one request per second',
  }),
  TOKEN_KNOWN_ADDRESS_DAYS: integer({
    default: 7,
    min: 0,
    max: 365,
    meaning:
      "An address that obtained a token for a client ID within these days is *known* for it, and exempt for that client ID from the client ID's lockout (nobody can lock a partner out with its public client ID) and from the address's own lockout (an ERP calling for many agencies from one address keeps serving them while one agency fails or someone there sweeps client IDs; every client ID not known there stays refused). Never from the client ID's own failures from that address (`TOKEN_FAILURES_PER_CLIENT`); `0` = no exemption",
  }),
} satisfies Settings;

const requestLog = {
  REQUEST_LOG: choice(['on', 'off'], {
    default: 'on',
    meaning:
      "The agencies' request log (`GET /v1/request-log`; not the access log of `LOG_LEVEL`): `on` records a line per authenticated partner request, after its answer, into this process's buffer, written in batches; `off` records nothing (the operation still lists what is kept). What it costs a get is in [`bench/results.md`](../bench/results.md)",
  }),
  REQUEST_LOG_FLUSH_MS: integer({
    default: 1000,
    min: 10,
    max: 60_000,
    meaning:
      'How long a line waits in the buffer before its batch is written (a batch of 500 is written at once). The buffer holds at most 20,000 lines: beyond, lines are dropped and counted (`request_log_lines_dropped_total`), with one warning. A crash loses what is buffered',
  }),
  REQUEST_LOG_LINES_PER_AGENCY: integer({
    default: 100_000,
    min: 1,
    max: 10_000_000,
    meaning: 'Lines kept per agency (its latest); every process prunes older ones, and lines older than 7 days, every minute',
  }),
  REQUEST_LOG_BYTES_PER_AGENCY: integer({
    default: 67_108_864,
    min: 4096,
    max: 1_073_741_824,
    meaning:
      "Bytes kept per agency: its latest lines' sizes summed (each line at most about 2 KB: the first 5 error details, each cut to 200 characters); older lines are pruned with the same run as `REQUEST_LOG_LINES_PER_AGENCY`, whichever bound is reached first (docs/bounds.md)",
  }),
} satisfies Settings;

const lifecycle = {
  SCHEDULER_INTERVAL_MS: integer({
    default: 5000,
    min: 0,
    max: 3_600_000,
    meaning:
      'Pause between scheduler runs (time-driven transitions, sandbox reviewer); `0` = this process runs no scheduler. Every process may run it: each guarantee is changed once (`FOR UPDATE SKIP LOCKED`)',
  }),
  SCHEDULER_BATCH_SIZE: integer({
    default: 100,
    min: 1,
    max: 10_000,
    meaning: 'Most guarantees one run changes per kind of transition; the rest wait for the next run',
  }),
  SCHEDULER_RETRY_BASE_SECONDS: integer({
    default: 60,
    min: 1,
    max: 86_400,
    meaning:
      "A scheduled step (a time-driven transition, the sandbox reviewer) that failed for a guarantee is left out of the runs for this long, then tried again; the delay doubles at each further failure (`src/scheduler/step-failures.ts`), so one guarantee's failure never holds up the others'",
  }),
  SCHEDULER_RETRY_MAX_SECONDS: integer({
    default: 3600,
    min: 1,
    max: 604_800,
    meaning: 'The longest delay between two tries of a failing scheduled step',
  }),
  PROPOSAL_VALIDITY_DAYS: integer({ default: 30, min: 1, max: 3650, meaning: 'An `approved` proposal expires this many days after approval' }),
  ARCHIVE_AFTER_DAYS: integer({
    default: 365,
    min: 0,
    max: 36_500,
    meaning: 'A `terminated` guarantee is archived this many days after termination',
  }),
  SANDBOX_REVIEW_DELAY_SECONDS: integer({
    default: 5,
    min: 0,
    max: 86_400,
    meaning: 'Sandbox only: time `under_review` (without changes) before the sandbox reviewer decides',
  }),
  SANDBOX_SIGNING_DELAY_SECONDS: integer({
    default: 5,
    min: 0,
    max: 86_400,
    meaning: 'Sandbox only: wait after accept before the envelope is ready, and again before the signers answer',
  }),
  SANDBOX_PROPOSAL_VALIDITY_SECONDS: integer({
    default: 60,
    min: 0,
    max: 86_400,
    meaning: 'Sandbox only: validity of a proposal whose `rentalAmount` ends in `.04`',
  }),
} satisfies Settings;

/** 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h: 11 attempts over about 24 hours (documented in partner.yaml). */
const DEFAULT_RETRY_SCHEDULE = '5000,30000,120000,600000,1800000,3600000,7200000,14400000,28800000,28800000';

const webhooks = {
  WEBHOOK_SECRET_KEY: text({
    pattern: '^[A-Za-z0-9+/]{43}=$',
    accepts: 'base64 of 32 bytes',
    unset: 'sandbox: derived',
    meaning:
      "Base64 of 32 random bytes (`openssl rand -base64 32`): the AES-256-GCM key of the endpoints' signing secrets at rest. **Required in production** by the service (the admin tool seals no webhook secret and does not ask for it)",
  }),
  WEBHOOK_DELIVERY_CONCURRENCY: integer({
    default: 10,
    min: 0,
    max: 200,
    meaning: 'Deliveries this process makes at once (pg-boss workers); `0` = this process delivers nothing',
  }),
  WEBHOOK_AGENCY_CONCURRENCY: integer({
    default: 3,
    min: 1,
    max: 200,
    meaning:
      "Of those, how many one agency's deliveries take at once: the rest stay free for the other agencies, however slow this one's receivers are",
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: integer({
    default: 2,
    min: 1,
    max: 200,
    meaning:
      "Of an agency's, how many attempts one endpoint gets at once, counted across all processes (keep it below `WEBHOOK_AGENCY_CONCURRENCY`): the rest stay free for the agency's other endpoints, however slowly this one answers. The contract promises partners 2",
  }),
  WEBHOOK_RETRY_SCHEDULE_MS: text({
    pattern: '^[0-9]{1,9}(,[0-9]{1,9}){0,29}$',
    accepts: 'up to 30 comma-separated delays (ms)',
    default: DEFAULT_RETRY_SCHEDULE,
    meaning:
      "Delays after each failed attempt (one attempt more than delays: about 24 h in all); a receiver's `Retry-After` lengthens a delay (up to 24 h)",
  }),
  WEBHOOK_DISABLE_AFTER_DAYS: integer({
    default: 5,
    min: 1,
    max: 365,
    meaning: 'An endpoint whose every attempt failed for this long is disabled (`410 Gone` disables at once)',
  }),
  WEBHOOK_TIMEOUT_MS: integer({
    default: 10_000,
    min: 100,
    max: 60_000,
    meaning: 'Timeout of one attempt (at most 64 KiB of the answer is read; redirects are not followed)',
  }),
  WEBHOOK_HEARTBEAT_SECONDS: integer({
    default: 30,
    min: 10,
    max: 600,
    meaning:
      'A process refreshes the heartbeat of each attempt it makes every half of this; an attempt whose heartbeat is this old (its process was killed or lost the database) is made again by another process. At least 10 (pg-boss). Set it alike on every process',
  }),
  WEBHOOK_SUPERVISE_SECONDS: integer({
    default: 30,
    min: 1,
    max: 600,
    meaning: 'How often the queue is checked for lost heartbeats (by one process at a time)',
  }),
  WEBHOOK_ALLOW_LOOPBACK: flag({
    default: false,
    note: '`true` with `make start`',
    meaning:
      "Sandbox only (production refuses to start with it): accept webhook receivers on loopback addresses (`http://127.0.0.1:8080/...`, any port but this service's `PORT`, `METRICS_PORT`, `EMBEDDED_DB_PORT` and `DATABASE_URL`'s port), for a partner testing a handler on its own machine. Keep it off for a hosted sandbox: its loopback is the service's own host",
  }),
} satisfies Settings;

const documents = {
  DOCUMENT_STORE_URL: text({
    pattern: '^s3://[^/?#]+',
    accepts: '`s3://<bucket>[/<prefix>][?endpoint=<url>&region=<region>]`',
    unset: 'PostgreSQL',
    meaning:
      "Where documents' bytes go ([documents](documents.md)): unset, PostgreSQL (a table of their own, in chunks); an S3-compatible object store, its credentials from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` (or the SDK's other sources)",
  }),
  DOCUMENT_BYTES_PER_AGENCY_PER_DAY: integer({
    default: 1_073_741_824,
    min: 1,
    max: 1_099_511_627_776,
    meaning:
      'Bytes of documents an agency may upload per calendar day (America/Sao_Paulo); beyond it, `429 document_quota_exceeded`, refused before the body is read',
  }),
  DOCUMENT_RETENTION_DAYS: integer({
    default: 1825,
    min: 1,
    max: 36_500,
    meaning: "Days after a guarantee is archived when its documents' bytes are deleted (their names and digests stay in the history)",
  }),
} satisfies Settings;

const consoleSettings = {
  CONSOLE_BASE_PATH: text({
    ...basePath,
    default: '/console',
    meaning: "Where the web console (directors' integrations section, reviewers' desk; docs/console.md) is served; its own API under `<path>/api`",
  }),
  CONSOLE_SESSION_IDLE_MINUTES: integer({
    default: 30,
    min: 1,
    max: 1440,
    meaning: 'A console session ends this many minutes after its last request',
  }),
  CONSOLE_SESSION_MAX_HOURS: integer({
    default: 12,
    min: 1,
    max: 168,
    meaning: 'A console session ends this many hours after sign-in at the latest',
  }),
  CONSOLE_INVITATION_HOURS: integer({ default: 24, min: 1, max: 720, meaning: 'An enrolment link (invitation) is valid this many hours, and once' }),
  CONSOLE_SIGN_IN_ATTEMPTS_PER_ADDRESS: integer({
    default: 60,
    min: 1,
    max: 100_000,
    meaning: 'Console sign-in and enrolment attempts one client address may make within the window; beyond it, `429`',
  }),
  CONSOLE_SIGN_IN_FAILURES_PER_PERSON: integer({
    default: 10,
    min: 1,
    max: 100_000,
    meaning: 'Failed console sign-ins of one person (from any address) within the window; beyond it, `429` for that person',
  }),
  CONSOLE_SIGN_IN_WINDOW_SECONDS: integer({ default: 900, min: 1, max: 86_400, meaning: 'The window of both console sign-in limits' }),
} satisfies Settings;

/** The declaration by section, in the order docs/configuration.md shows them. */
export const CONFIG_SECTIONS = [
  { title: 'Service', settings: service },
  { title: 'Logs', settings: logs },
  { title: 'Database', settings: database },
  { title: 'Limits and quotas', settings: limits },
  { title: 'Token endpoint', settings: tokenEndpoint },
  { title: "Agencies' request log", settings: requestLog },
  { title: 'Scheduler and sandbox', settings: lifecycle },
  { title: 'Webhooks', settings: webhooks },
  { title: 'Documents', settings: documents },
  { title: 'Console', settings: consoleSettings },
] as const;

export const SETTINGS = {
  ...service,
  ...logs,
  ...database,
  ...limits,
  ...tokenEndpoint,
  ...requestLog,
  ...lifecycle,
  ...webhooks,
  ...documents,
  ...consoleSettings,
};

export type Config = ConfigOf<typeof SETTINGS>;
