/**
 * The app refuses to start when the operation registry and the contract disagree: an operation
 * without a handler, a handler without an operation, a write that would bypass the idempotency
 * pipeline, an operation declaring If-Match without a precondition, a public declaration that the
 * document secures. The same mistakes made in code fail `make typecheck` (the @ts-expect-error
 * declarations at the end would stop compiling if the types let them through).
 */
import { buildApp } from '../../src/app';
import { PrincipalCache } from '../../src/auth/principal-cache';
import { Lifecycle } from '../../src/health/lifecycle';
import { loadConfig } from '../../src/config';
import { createDatabaseClient } from '../../src/database/prisma-client';
import type { DeclaredOperation } from '../../src/http/operation-registry';
import { createLogger } from '../../src/logger';
import { backOfficeApi } from '../../src/back-office/api/back-office-api';
import { partnerApi } from '../../src/partner/partner-api';
import { defineOperation, definePublicOperation, type PartnerWork } from '../../src/partner/partner-work';

const config = loadConfig({ LOG_LEVEL: 'silent' });
// Building the app opens no connection: a client on an address nothing listens on is enough.
const db = createDatabaseClient('postgresql://nobody@127.0.0.1:9/none', { poolMax: 1 });
afterAll(() => db.$disconnect());

function build(partner = partnerApi(config), backOffice = backOfficeApi(config)) {
  const lifecycle = new Lifecycle();
  const ready = async () => true;
  return buildApp({
    db,
    config,
    logger: createLogger('silent'),
    principals: new PrincipalCache(10),
    lifecycle,
    ready,
    apis: { partner, backOffice },
  });
}

function partnerWith(
  change: (operations: DeclaredOperation<PartnerWork>[]) => DeclaredOperation<PartnerWork>[],
  document = partnerApi(config).document,
) {
  const api = partnerApi(config);
  return { ...api, document, operations: change(api.operations) };
}

const without = (id: string) => (operations: DeclaredOperation<PartnerWork>[]) => operations.filter((operation) => operation.operationId !== id);

describe('When the registry matches both documents', () => {
  test('then the app builds', async () => {
    await expect(build()).resolves.toBeDefined();
  });
});

describe('When the registry is broken', () => {
  test('then an operation of the document without a handler stops the start', async () => {
    await expect(build(partnerWith(without('getRentalInsurance')))).rejects.toThrow(
      /getRentalInsurance \(GET \/v1\/rental-insurances\/\{id\}\) has no handler/,
    );
  });

  test('then a handler of an operation the document does not define stops the start', async () => {
    const stray: DeclaredOperation<PartnerWork> = { operationId: 'deleteRentalInsurance', isPublic: false, handler: async () => ({ status: 204 }) };
    await expect(build(partnerWith((operations) => [...operations, stray]))).rejects.toThrow(
      /a handler is declared for deleteRentalInsurance, which openapi\/partner.yaml does not define/,
    );
  });

  test('then an operation declared twice stops the start', async () => {
    await expect(build(partnerWith((operations) => [...operations, operations[0]!]))).rejects.toThrow(/listRentalInsurances is declared twice/);
  });

  test('then a write whose contract lost its Idempotency-Key would bypass the idempotency pipeline and stops the start', async () => {
    const document = structuredClone(partnerApi(config).document) as {
      paths: Record<string, Record<string, { parameters?: Array<{ $ref?: string }> }>>;
    };
    const create = document.paths['/v1/rental-insurances']!['post']!;
    create.parameters = (create.parameters ?? []).filter((parameter) => parameter.$ref !== '#/components/parameters/IdempotencyKey');
    await expect(build(partnerWith((operations) => operations, document as never))).rejects.toThrow(
      /createRentalInsurance is a POST whose contract does not require Idempotency-Key: it would bypass the idempotency pipeline/,
    );
  });

  test('then an operation that declares If-Match without a precondition stops the start', async () => {
    const unchecked = (operations: DeclaredOperation<PartnerWork>[]) =>
      operations.map((operation) => (operation.operationId === 'patchRentalInsurance' ? { ...operation, precondition: undefined } : operation));
    await expect(build(partnerWith(unchecked))).rejects.toThrow(/patchRentalInsurance declares If-Match but its handler has no precondition/);
  });

  test('then a precondition on an operation without If-Match stops the start', async () => {
    const checked = (operations: DeclaredOperation<PartnerWork>[]) =>
      operations.map((operation) =>
        operation.operationId === 'acceptRentalInsurance' ? { ...operation, precondition: async () => ({ version: 1 }) } : operation,
      );
    await expect(build(partnerWith(checked))).rejects.toThrow(/acceptRentalInsurance has a precondition but its contract declares no If-Match/);
  });

  test('then a secured operation declared public, or a public one declared secured, stops the start', async () => {
    const flipped = (operations: DeclaredOperation<PartnerWork>[]) =>
      operations.map((operation) =>
        ['getRentalInsurance', 'getOpenApiJson'].includes(operation.operationId) ? { ...operation, isPublic: !operation.isPublic } : operation,
      );
    const start = build(partnerWith(flipped));
    await expect(start).rejects.toThrow(/getRentalInsurance requires a token but is declared public/);
    await expect(start).rejects.toThrow(/getOpenApiJson has no security requirement: declare it with definePublicOperation/);
  });

  test('then the back office registry is checked against its own document', async () => {
    const api = backOfficeApi(config);
    const broken = { ...api, operations: api.operations.filter((operation) => operation.operationId !== 'revokeCredential') };
    await expect(build(partnerApi(config), broken)).rejects.toThrow(/openapi\/back-office.yaml[\s\S]*revokeCredential .* has no handler/);
  });
});

/** Never called: these declarations exist for the type checker, which must refuse each one. */
export function declarationsThatDoNotTypeCheck(): unknown[] {
  const row = { status: 200 as const, body: {} as never, version: 1, effects: [] };
  return [
    // @ts-expect-error: not an operationId of openapi/partner.yaml
    defineOperation('deleteRentalInsurance', { handler: async () => row }),
    // @ts-expect-error: patchRentalInsurance declares If-Match, so a precondition is required
    defineOperation('patchRentalInsurance', { handler: async () => row }),
    // @ts-expect-error: getRentalInsurance answers ETag: its result needs `version`
    defineOperation('getRentalInsurance', { handler: async () => ({ status: 200 as const, body: {} as never }) }),
    // @ts-expect-error: 201 is not a success status of getRentalInsurance
    defineOperation('getRentalInsurance', { handler: async () => ({ status: 201 as const, body: {} as never, version: 1 }) }),
    // @ts-expect-error: createRentalInsurance answers Location and Service-Effects: `location` and `effects` are required
    defineOperation('createRentalInsurance', { handler: async () => ({ status: 201 as const, body: {} as never, version: 1 }) }),
    // @ts-expect-error: the body's fields are typed from the contract (comment is a string)
    defineOperation('createRentalInsuranceComment', { handler: async ({ body }) => ({ status: 201 as const, body: body.comment * 2, effects: [] }) }),
    // @ts-expect-error: a public operation's result is typed too (getOpenApiJson answers 200, not 201)
    definePublicOperation('getOpenApiJson', async () => ({ status: 201 as const, body: {} })),
  ];
}
