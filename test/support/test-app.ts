/**
 * Per test file: a fresh database cloned from the migrated template, the real app on it (with
 * contract checking of every response), and helpers to create agencies' credentials and tokens.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import request from 'supertest';
import type { Express } from 'express';
import { buildApp } from '../../src/app';
import { createCredential, type CreatedCredential } from '../../src/auth/credentials';
import { SCOPES } from '../../src/auth/scopes';
import { loadConfig, type Config } from '../../src/config';
import { createDatabaseClient, type Database } from '../../src/database/prisma-client';
import { createLogger } from '../../src/logger';
import { databaseUrl, RUN_PREFIX, templateDatabase } from './test-database-server';

export interface TestApp {
  app: Express;
  db: Database;
  config: Config;
  databaseUrl: string;
  /** A credential of a new agency (company), with the given scopes (all by default). */
  newAgency(options?: { scopes?: string[]; companyId?: string; displayName?: string }): Promise<Agency>;
  close(): Promise<void>;
}

export interface Agency extends CreatedCredential {
  token: string;
  auth: { Authorization: string };
}

export const API = '/rental-guarantee';
export const TOKEN_PATH = '/auth/oauth2/token';

export async function startTestApp(overrides: Record<string, string> = {}): Promise<TestApp> {
  const serverUrl = process.env.TEST_SERVER_URL;
  if (!serverUrl) throw new Error('TEST_SERVER_URL is not set: run the tests through jest (global setup)');
  const runId = process.env.TEST_RUN_ID!;
  const name = `${RUN_PREFIX}${runId}_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (admin) => admin.query(`CREATE DATABASE "${name}" TEMPLATE "${templateDatabase(runId)}"`));
  const url = databaseUrl(serverUrl, name);
  const config = loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: url, DATABASE_POOL_MAX: '5', ...overrides });
  const db = createDatabaseClient(url, config.DATABASE_POOL_MAX, config.DATABASE_POOL_WAIT_MS);
  const app = await buildApp({ db, config, logger: createLogger(config.LOG_LEVEL), checkResponses: true });
  let agencies = 0;
  return {
    app,
    db,
    config,
    databaseUrl: url,
    async newAgency(options = {}) {
      agencies += 1;
      const credential = await createCredential(db, config.ENVIRONMENT, {
        companyId: options.companyId ?? `agency-${agencies}-${randomBytes(3).toString('hex')}`,
        displayName: options.displayName ?? `Agency ${agencies} integration`,
        scopes: options.scopes ?? [...SCOPES],
        createdBy: 'test',
      });
      const token = await issueToken(app, credential.clientId, credential.clientSecret);
      return { ...credential, token, auth: { Authorization: `Bearer ${token}` } };
    },
    async close() {
      await db.$disconnect();
      await withAdmin(serverUrl, (admin) => admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

export async function issueToken(app: Express, clientId: string, clientSecret: string, scope?: string): Promise<string> {
  const form: Record<string, string> = { grant_type: 'client_credentials' };
  if (scope !== undefined) form.scope = scope;
  const response = await request(app).post(TOKEN_PATH).auth(clientId, clientSecret).type('form').send(form);
  if (response.status !== 200) throw new Error(`token request failed: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body.access_token as string;
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
