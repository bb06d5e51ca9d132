/** Configuration that would make the service unsafe or unable to run stops it at start-up, naming the variable. */
import { ConfigError, loadConfig } from '../../src/config';
import { namesStatements } from '../../src/database/statement-cache';

describe('When the service starts with a risky or impossible configuration', () => {
  test('then production without PUBLIC_ORIGIN is refused: its links would follow the caller-controlled Host header', () => {
    expect(() => loadConfig({ ENVIRONMENT: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig({ ENVIRONMENT: 'production' })).toThrow(/PUBLIC_ORIGIN is required in production/);
    const key = Buffer.alloc(32, 1).toString('base64');
    expect(loadConfig({ ENVIRONMENT: 'production', PUBLIC_ORIGIN: 'https://api.example.com', WEBHOOK_SECRET_KEY: key }).PUBLIC_ORIGIN).toBe(
      'https://api.example.com',
    );
    expect(loadConfig({}).ENVIRONMENT).toBe('sandbox');
  });

  test('then base paths that nest with each other or with /health are refused', () => {
    expect(() => loadConfig({ API_BASE_PATH: '/health' })).toThrow(/API_BASE_PATH must not equal or nest with the health probes/);
    expect(() => loadConfig({ BACK_OFFICE_BASE_PATH: '/rental-guarantee/ops' })).toThrow(
      /API_BASE_PATH must not equal or nest with BACK_OFFICE_BASE_PATH/,
    );
  });

  test('then a request timeout shorter than the headers timeout is refused (Node would not start)', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '20000', HTTP_REQUEST_TIMEOUT_MS: '10000' })).toThrow(
      /HTTP_REQUEST_TIMEOUT_MS must be at least HTTP_HEADERS_TIMEOUT_MS/,
    );
  });

  test('then DATABASE_DIRECT_URL without DATABASE_URL is refused (the embedded server has no pooler)', () => {
    expect(() => loadConfig({ DATABASE_DIRECT_URL: 'postgresql://db/x' })).toThrow(/DATABASE_DIRECT_URL needs DATABASE_URL/);
  });
});

describe('When the admin tool reads its configuration in production', () => {
  test('then it asks for neither PUBLIC_ORIGIN nor WEBHOOK_SECRET_KEY: none of its commands builds a link or seals a secret', () => {
    expect(loadConfig({ ENVIRONMENT: 'production' }, 'admin').ENVIRONMENT).toBe('production');
    expect(() => loadConfig({ ENVIRONMENT: 'production' }, 'service')).toThrow(/WEBHOOK_SECRET_KEY is required in production/);
  });
});

describe('When the statement cache setting is left to auto', () => {
  const direct = 'postgresql://db:5432/x';
  const pooler = 'postgresql://pooler:6432/x';
  test('then statements are named only when DATABASE_URL is the direct connection', () => {
    expect(namesStatements(loadConfig({ DATABASE_URL: direct }))).toBe(true);
    expect(namesStatements(loadConfig({ DATABASE_URL: direct, DATABASE_DIRECT_URL: direct }))).toBe(true);
    expect(namesStatements(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct }))).toBe(false);
    expect(namesStatements(loadConfig({}))).toBe(true);
  });
  test('then on and off override the rule', () => {
    expect(namesStatements(loadConfig({ DATABASE_URL: pooler, DATABASE_DIRECT_URL: direct, DATABASE_STATEMENT_CACHE: 'on' }))).toBe(true);
    expect(namesStatements(loadConfig({ DATABASE_URL: direct, DATABASE_STATEMENT_CACHE: 'off' }))).toBe(false);
    expect(() => loadConfig({ DATABASE_STATEMENT_CACHE: 'sometimes' })).toThrow(/DATABASE_STATEMENT_CACHE/);
  });
});
