/**
 * Operations are declared, not registered by hand: `defineOperation('getRentalInsurance', { handler })`
 * where the operationId must be one of the contract's (a key of the generated `operations`), and the
 * handler's input and result are typed from it. An operation whose contract declares `If-Match`
 * cannot be declared without a `precondition` (it does not type-check), and an operation without a
 * security requirement must be declared public. `checkRegistry` repeats these rules against the
 * document at start-up, where the contract itself might be the one that changed.
 */
import type { ListBounds } from '../contract/list-bounds';
import type { FieldProblems } from '../validation/field-problems';
import type { ContractOperation, DeclaresIfMatch, OperationInput, OperationResult } from './contract-types';
import type { PreparedRepresentations } from './representations';

/** Facts of the request beyond its validated values. */
export interface RequestFacts {
  /** Absolute base URL of the API as the caller reached it (PUBLIC_ORIGIN + base path). */
  baseUrl: string;
  /** The service's origin as the caller reached it (PUBLIC_ORIGIN, or the request's scheme and Host): the console's WebAuthn origin. */
  origin: string;
  /** The client's address as the service saw it (rate limits of the console's sign-in). */
  address: string;
  /** Path relative to the API's base path, e.g. /v1/rental-insurances/42 (paging links). */
  path: string;
  /** The declared query parameters as validated (paging links keep the filters). */
  query: Record<string, unknown>;
  correlationId: string;
  /** The operation's page bounds when it lists (the contract's maxItems and x-max-bytes, contract/list-bounds.ts). */
  list?: ListBounds;
}

/** A resource whose version an `If-Match` precondition checks. */
export interface Versioned {
  version: number;
}

type Handler<Op extends ContractOperation, Work, Extra> = (
  input: OperationInput<Op> & Extra,
  work: Work,
  request: RequestFacts,
) => Promise<OperationResult<Op>>;

/**
 * The one step that turns a request's validated input into what the handler works with (column
 * values: normalised identifiers, phones, dates, exact money), run once by the pipeline after the
 * contract's validation and before the write's transaction. The problems it records (check digits,
 * phones...: what JSON Schema cannot see) answer 400 with every problem; the handler and the
 * precondition receive its result as `normalised`. For a request that failed the schema, the same
 * step runs on what was sent (only objects are looked into) and its problems join the schema's.
 */
type Normalise<Op extends ContractOperation, Normalised> = (input: OperationInput<Op>, problems: FieldProblems) => Normalised;

interface DefinitionBase {
  /** A request whose cost grows with the data (a name search): it counts more and runs under a concurrency limit (rate-limits.ts). */
  expensive?: (query: Record<string, unknown>) => boolean;
  /** A read the streaming replica may serve when it is current (database/replica-reads.ts). */
  replicaRead?: boolean;
}

/**
 * Checks that may be slow and need no transaction (a webhook URL's DNS resolution), run before the
 * write's transaction begins, on a unit of work outside any transaction: a slow resolver then holds
 * neither a pooled connection nor a row lock (issue 23 list 7).
 */
type CheckBefore<Op extends ContractOperation, Work> = (input: OperationInput<Op>, work: Work) => Promise<void>;

export interface PlainDefinition<Op extends ContractOperation, Work, Normalised> extends DefinitionBase {
  normalise?: Normalise<Op, Normalised>;
  checkBefore?: CheckBefore<Op, Work>;
  handler: Handler<Op, Work, { normalised: Normalised }>;
}

export interface PreconditionDefinition<Op extends ContractOperation, Work, Current extends Versioned, Normalised> extends DefinitionBase {
  normalise?: Normalise<Op, Normalised>;
  /**
   * Finds the resource whose version `If-Match` names (inside the write's transaction, locked), or
   * throws 404. The pipeline compares its version with If-Match (412) before the handler runs, and
   * the handler receives it as `current`.
   */
  precondition: (input: OperationInput<Op> & { normalised: Normalised }, work: Work) => Promise<Current>;
  checkBefore?: CheckBefore<Op, Work>;
  handler: Handler<Op, Work, { current: Current; normalised: Normalised }>;
}

/** A validated request, its types erased (the pipeline's side of OperationInput), and what its normalise step made of it. */
export interface DeclaredInput {
  params: unknown;
  query: unknown;
  body: unknown;
  normalised?: unknown;
}

/** What the pipeline keeps of a declaration (types erased). */
export interface DeclaredOperation<Work> {
  operationId: string;
  isPublic: boolean;
  normalise?: (input: DeclaredInput, problems: FieldProblems) => unknown;
  expensive?: (query: Record<string, unknown>) => boolean;
  replicaRead?: boolean;
  precondition?: (input: DeclaredInput, work: Work) => Promise<Versioned>;
  checkBefore?: (input: DeclaredInput, work: Work) => Promise<void>;
  handler: (input: DeclaredInput & { current?: Versioned }, work: Work | undefined, request: RequestFacts) => Promise<unknown>;
}

type OperationIds<Ops, WithIfMatch extends boolean> = {
  [Id in keyof Ops]: Ops[Id] extends ContractOperation ? (DeclaresIfMatch<Ops[Id]> extends WithIfMatch ? Id : never) : never;
}[keyof Ops] &
  string;

type Contract<Ops, Id extends keyof Ops> = Ops[Id] extends ContractOperation ? Ops[Id] : never;

export interface OperationRegistry<Ops, Work> {
  /** An operation whose contract declares If-Match: the precondition is required. */
  defineOperation<Id extends OperationIds<Ops, true>, Current extends Versioned, Normalised = undefined>(
    operationId: Id,
    definition: PreconditionDefinition<Contract<Ops, Id>, Work, Current, Normalised>,
  ): DeclaredOperation<Work>;
  defineOperation<Id extends OperationIds<Ops, false>, Normalised = undefined>(
    operationId: Id,
    definition: PlainDefinition<Contract<Ops, Id>, Work, Normalised>,
  ): DeclaredOperation<Work>;
  /** An operation the contract declares without security (`security: []`): no principal, no work. */
  definePublicOperation<Id extends OperationIds<Ops, false>>(
    operationId: Id,
    handler: (input: OperationInput<Contract<Ops, Id>>, request: RequestFacts) => Promise<OperationResult<Contract<Ops, Id>>>,
  ): DeclaredOperation<Work>;
  /**
   * A public operation that answers a page built once (a published document, representations.ts):
   * the pipeline chooses its encoding by Accept-Encoding and answers 304 to a matching If-None-Match.
   */
  definePreparedPage<Id extends OperationIds<Ops, false>>(
    operationId: Id,
    page: (request: RequestFacts) => Promise<PreparedRepresentations>,
  ): DeclaredOperation<Work>;
}

/** The define functions of one contract (`Ops`, its generated `operations`) and one kind of unit of work. */
export function operationRegistry<Ops, Work>(): OperationRegistry<Ops, Work> {
  return {
    defineOperation(operationId: string, definition: DefinitionBase & { precondition?: unknown; handler: unknown }) {
      return { operationId, isPublic: false, ...definition } as DeclaredOperation<Work>;
    },
    definePublicOperation(operationId: string, handler: (input: never, request: RequestFacts) => Promise<unknown>) {
      return {
        operationId,
        isPublic: true,
        handler: (input: never, _work: unknown, request: RequestFacts) => handler(input, request),
      } as DeclaredOperation<Work>;
    },
    definePreparedPage(operationId: string, page: (request: RequestFacts) => Promise<PreparedRepresentations>) {
      return {
        operationId,
        isPublic: true,
        handler: async (_input: unknown, _work: unknown, request: RequestFacts) => ({ status: 200, body: await page(request) }),
      } as DeclaredOperation<Work>;
    },
  } as OperationRegistry<Ops, Work>;
}
