/**
 * The one test-app lifecycle of the suite: `useTestApp()` at the top of a test file registers the
 * beforeAll that gives the file a fresh database cloned from the migrated template and the real
 * app on it (with contract checking of every response), and the afterAll that drops them.
 *
 *   const world = useTestApp({ COMMENT_QUOTA_PER_DAY: '3' }, { agencies: 1 });
 *   const partner = asPartner(world); // acts as world.agency
 *
 * The handle is filled when the beforeAll has run: read it inside tests and hooks, never while
 * the file is being collected.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { Express } from 'express';
import { createCredential, type CreatedCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import type { Config } from '../../src/config';
import type { Database } from '../../src/database/prisma-client';
import type { PrincipalCache } from '../../src/auth/principal-cache';
import { startAppOn, type InProcessApp, type InProcessOptions } from './in-process-app';
import { issueToken } from './partner-api';
import { databaseUrl, RUN_PREFIX, templateDatabase } from './test-database-server';

export interface TestApp {
  app: Express;
  db: Database;
  config: Config;
  databaseUrl: string;
  /** The app's cache of token principals (tests wait on its evictions after revoking in the database). */
  principals: PrincipalCache;
  /** Writes the request log lines the app buffered so far (its write-behind), as a graceful stop does. */
  flushRequestLog(): Promise<void>;
  /** A credential of a new agency (company), with the given scopes (all by default), and its token. */
  newAgency(options?: AgencyOptions): Promise<Agency>;
}

export interface AgencyOptions {
  scopes?: string[];
  companyId?: string;
  displayName?: string;
}

export interface Agency extends CreatedCredential {
  token: string;
  auth: { Authorization: string };
}

export interface World extends TestApp {
  /** The first ready-made agency (`agencies` option); throws when the file asked for none. */
  readonly agency: Agency;
  /** Every ready-made agency, in the order asked for. */
  readonly agencies: readonly Agency[];
  /**
   * Runs `cleanup` in the afterAll before the app and its database go away (last registered, first
   * run): services on the database, servers listening on the app.
   */
  beforeClose(cleanup: () => unknown): void;
  /** Another app on the world's database, as a second service process has; closed in the afterAll. */
  anotherApp(env?: Record<string, string>, options?: InProcessOptions): Promise<InProcessApp>;
}

export interface WorldOptions extends InProcessOptions {
  /** More environment, read when the app starts (after the file's earlier beforeAll hooks: a server a test started). */
  lazyEnv?: () => Record<string, string>;
  /** Agencies created before the first test: how many, or the options of each. */
  agencies?: number | AgencyOptions[];
}

export function useTestApp(env: Record<string, string> = {}, options: WorldOptions = {}): World {
  let started: StartedApp | undefined;
  const agencies: Agency[] = [];
  const cleanups: Array<() => unknown> = [];
  const wanted = typeof options.agencies === 'number' ? Array.from({ length: options.agencies }, () => ({})) : (options.agencies ?? []);

  // Starting a world (a database from the template, its agencies) and stopping it (its processes
  // and workers, then dropping the database) can outlast jest's 30 s on a loaded machine, and a
  // hook that times out fails the whole file for nothing: the hooks get two minutes.
  beforeAll(async () => {
    started = await startTestApp({ ...env, ...options.lazyEnv?.() }, options);
    for (const agencyOptions of wanted) agencies.push(await started.newAgency(agencyOptions));
  }, 120_000);
  afterAll(async () => {
    try {
      for (const cleanup of cleanups.reverse()) await cleanup();
    } finally {
      await started?.close();
    }
  }, 120_000);

  const ready = (): StartedApp => {
    if (!started) throw new Error('useTestApp: the app starts in beforeAll; use the world inside tests and hooks');
    return started;
  };
  return {
    get app() {
      return ready().app;
    },
    get db() {
      return ready().db;
    },
    get config() {
      return ready().config;
    },
    get databaseUrl() {
      return ready().databaseUrl;
    },
    get principals() {
      return ready().principals;
    },
    flushRequestLog: () => ready().flushRequestLog(),
    newAgency: (agencyOptions) => ready().newAgency(agencyOptions),
    get agency() {
      ready();
      if (!agencies[0]) throw new Error('useTestApp: no ready-made agency; pass { agencies: 1 } or call newAgency()');
      return agencies[0];
    },
    get agencies() {
      ready();
      return agencies;
    },
    beforeClose: (cleanup) => void cleanups.push(cleanup),
    anotherApp: async (anotherEnv = {}, anotherOptions = {}) => {
      const another = await startAppOn(ready().databaseUrl, anotherEnv, anotherOptions);
      cleanups.push(() => another.close());
      return another;
    },
  };
}

interface StartedApp extends TestApp {
  close(): Promise<void>;
}

async function startTestApp(overrides: Record<string, string>, options: WorldOptions): Promise<StartedApp> {
  const serverUrl = process.env.TEST_SERVER_URL;
  if (!serverUrl) throw new Error('TEST_SERVER_URL is not set: run the tests through jest (global setup)');
  const runId = process.env.TEST_RUN_ID!;
  const name = `${RUN_PREFIX}${runId}_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase(runId)}"`));
  const url = databaseUrl(serverUrl, name);
  const { app, db, config, principals, flushRequestLog, close } = await startAppOn(url, overrides, options);
  let agencies = 0;
  return {
    app,
    db,
    config,
    databaseUrl: url,
    principals,
    flushRequestLog,
    async newAgency(options = {}) {
      agencies += 1;
      const credential = await createCredential(db, config.ENVIRONMENT, {
        companyId: options.companyId ?? `agency-${agencies}-${randomBytes(3).toString('hex')}`,
        displayName: options.displayName ?? `Agency ${agencies} integration`,
        scopes: options.scopes ?? [...SCOPES],
        createdBy: 'test',
      });
      const token = await issueToken({ app }, credential.clientId, credential.clientSecret);
      return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
    },
    async close() {
      await close();
      await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

async function withAdmin<T>(serverUrl: string, action: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    return await action(admin);
  } finally {
    await admin.end();
  }
}
