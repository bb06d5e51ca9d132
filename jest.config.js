/**
 * Jest runs the TypeScript sources directly through ts-jest (transpile only; `make typecheck`
 * type-checks). Jest's module sandbox cannot require() ES modules on Node 20, so the one ESM-only
 * dependency loaded inside tests (openapi-backend's JSON-schema ref parser) is transpiled to CommonJS.
 */
const esmOnly = ['@apidevtools/json-schema-ref-parser'];

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The topology test (hosts, balancer, pooler, replica) runs on its own: `make topology-test`.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/topology/'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
    '^.+\\.js$': ['ts-jest', { tsconfig: 'tsconfig.test.json', diagnostics: false }],
  },
  transformIgnorePatterns: [`/node_modules/(?!(${esmOnly.join('|')})/)`],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 30000,
  maxWorkers: 2,
};
