/**
 * The layers of src/, top to bottom: the one table that the layer check (`.dependency-cruiser.cjs`,
 * run by `make check`) enforces and that docs/architecture.md shows (`make generate` writes it there).
 *
 * A unit is a folder of src/ or one of its top-level files. A unit may import from its own unit and
 * from any unit of a LOWER layer; never from a higher layer, and never from another unit of its own
 * layer (units side by side know nothing of each other), except in a layer marked `sideways`.
 * Every unit of src/ must be listed: a new folder gets its place here before it is checked.
 */
const LAYERS = [
  { name: 'process', units: ['main.ts'], holds: 'the entry: configuration, database, migrations, one process or a cluster' },
  {
    name: 'runtime',
    units: ['runtime/'],
    holds:
      'a serving process: the listener and its timeouts, the cluster primary, what starts and stops with it (scheduler, workers, request-log writer), graceful shutdown',
  },
  { name: 'app', units: ['app.ts'], holds: 'the Express app assembled from the APIs, without listening (tests use it in-process)' },
  {
    name: 'APIs',
    units: ['partner/', 'back-office/', 'health/', 'console/'],
    holds:
      "each document's operations (`defineOperation`) and what their handlers work with; the admin command-line tool; the console's pages and its sign-in API",
  },
  {
    name: 'sandbox',
    units: ['sandbox/'],
    holds: "the sandbox reviewer's jobs and magic values, time travel, the jobs this environment's scheduler runs",
  },
  { name: 'scheduler', units: ['scheduler/'], holds: 'the job runner (given its jobs by its starter), housekeeping' },
  {
    name: 'features',
    units: ['guarantees/', 'webhooks/', 'request-log/', 'people/'],
    holds:
      "guarantees (their transitions in one folder: the status machine, the partner's writes, the reviewers' and time's moves; history, their documents and the stores of their bytes), webhook endpoints and delivery, the agencies' request log (stored, read, pruned), the console's people (invitations, passkeys and their ceremonies, sign-in limits)",
  },
  { name: 'ledger', units: ['financial/'], holds: 'ledger, balance, daily summaries, statement entries' },
  { name: 'events', units: ['events/'], holds: 'the transactional outbox (`emitEvent`) and the event feed' },
  {
    name: 'pipeline',
    units: ['http/'],
    holds:
      'the request pipeline: routing, validation, authentication, idempotent writes, preconditions, paging, answers, the access log; knows no feature',
  },
  { name: 'auth', units: ['auth/'], holds: 'credentials and secrets, principals, scopes, the token endpoint, who signs a write (actors)' },
  { name: 'database', units: ['database/'], holds: "Prisma client and pool, a write's unit of work, migrations, the embedded PostgreSQL" },
  {
    name: 'job queue',
    units: ['job-queue/'],
    holds: "pg-boss: its schema and queue (installed at migration), the SQL that queues a job in a write's own statement",
  },
  {
    name: 'contract and metrics',
    units: ['contract/', 'observability/'],
    holds: 'the OpenAPI documents loaded (and the reference page); Prometheus metrics',
  },
  {
    name: 'foundation',
    units: [
      'config.ts',
      'config-settings.ts',
      'config-declaration.ts',
      'errors.ts',
      'logger.ts',
      'project-root.ts',
      'tracing/',
      'validation/',
      'generated/',
      'types/',
    ],
    sideways: true,
    holds:
      'configuration, typed errors, logs and traces (OpenTelemetry: the API always, the SDK only when OTEL_* asks), pure validation, generated types: leaves',
  },
];

module.exports = { LAYERS };
