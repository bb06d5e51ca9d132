/**
 * Jest runs the TypeScript sources directly through ts-jest (transpile only; `make typecheck`
 * type-checks). Jest 30's module sandbox can require() an ES module only with Node's
 * --experimental-vm-modules flag, even on Node 24 (it checks for vm.SyntheticModule), so the
 * ESM-only dependencies loaded inside tests (openapi-backend's JSON-schema ref parser, pg-boss and
 * its own ESM-only dependencies) are transpiled to CommonJS instead of running the suite on an
 * experimental flag. The built service needs none of it: Node >= 22.12 require()s ES modules.
 */
const esmOnly = [
  '@apidevtools/json-schema-ref-parser',
  'pg-boss',
  'serialize-error',
  'non-error',
  'rrule-temporal',
  'temporal-spec',
  // file-type (documents' type sniffing, issue 35) and its ESM-only dependencies.
  'file-type',
  'strtok3',
  'token-types',
  'uint8array-extras',
  '@tokenizer/inflate',
  '@borewit/text-codec',
];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The topology test (hosts, balancer, pooler, replica) and the rolling deploy test (a previous
  // release built beside this one) run on their own: `make topology-test`, `make rolling-deploy-test`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/topology/', '<rootDir>/test/rolling/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
    '^.+\\.js$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  // Three workers on two cores: much of a test file's time is spent waiting (receivers, timeouts,
  // other processes), and every file reading the event feed waits for the shared server's older
  // transactions first (webhook-support.ts), so a third file's open transaction delays it, never
  // hides an event from it. bench/results.md has the suite's times with two and three.
  maxWorkers: 3,
};
