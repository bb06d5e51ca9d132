/**
 * What an operation's handler receives and returns, derived at type level from the types that
 * openapi-typescript generates from the contract (src/generated/*-api.ts). A handler of
 * `patchRentalInsurance` gets the path parameters, query and body the document declares for it, and
 * must return one of the success statuses the document declares, with that status's body and the
 * values of the headers the pipeline sets from them (`version` for `ETag`, `effects` for
 * `Service-Effects`, `location` for `Location`).
 */

import type { StreamedBody } from './http-result';
import type { UploadedFile } from './multipart-body';

/** Headers the pipeline owns: it sets them from the result's fields or from the request. */
export type PipelineHeader = 'ETag' | 'Service-Effects' | 'Location' | 'Idempotent-Replay' | 'X-Correlation-Id' | 'RateLimit' | 'RateLimit-Policy';

/** An operation as openapi-typescript declares it. */
export interface ContractOperation {
  parameters: { query?: unknown; header?: unknown; path?: unknown; cookie?: unknown };
  requestBody?: unknown;
  responses: Record<number, unknown>;
}

/** The named keys of an object type, without its index signature (`[name: string]: unknown`). */
export type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : K]: T[K] };

type NeverAsEmpty<T> = [T] extends [never] ? Record<string, never> : T;

export type PathParams<Op extends ContractOperation> = NeverAsEmpty<NonNullable<Op['parameters']['path']>>;
export type QueryParams<Op extends ContractOperation> = NeverAsEmpty<NonNullable<Op['parameters']['query']>>;
export type HeaderParams<Op extends ContractOperation> = NeverAsEmpty<NonNullable<Op['parameters']['header']>>;

/**
 * A `multipart/form-data` body as the pipeline reads it (multipart-body.ts): each binary part (a
 * `string[]` of `format: binary` in the generated types) arrives as the files it staged.
 */
type MultipartBody<Body> = { [K in keyof Body]: NonNullable<Body[K]> extends string[] ? UploadedFile[] : Body[K] };

type BodyOf<Content> = {
  [Type in keyof Content]: Type extends 'multipart/form-data' ? MultipartBody<Content[Type]> : Content[Type];
}[keyof Content];

/** The request body of the operation's media types; undefined when none is declared or it is optional. */
export type RequestBody<Op extends ContractOperation> =
  NonNullable<Op['requestBody']> extends { content: infer Content }
    ? undefined extends Op['requestBody']
      ? BodyOf<Content> | undefined
      : BodyOf<Content>
    : undefined;

/** True when the contract declares `If-Match` on the operation: its handler needs a precondition. */
export type DeclaresIfMatch<Op extends ContractOperation> = 'If-Match' extends KnownKeys<HeaderParams<Op>> ? true : false;

type SuccessStatus<Op extends ContractOperation> = Extract<keyof Op['responses'], 200 | 201 | 202 | 204>;
type ResponseOf<Op extends ContractOperation, S extends keyof Op['responses']> = Op['responses'][S];
/** A body of bytes (no JSON media type: a document) may be a StreamedBody, sent as a stream. */
type ResponseBody<R> = R extends { content: infer Content }
  ? 'application/json' extends keyof Content
    ? Content[keyof Content]
    : Content[keyof Content] | StreamedBody
  : undefined;
type ResponseHeaders<R> = R extends { headers: infer H } ? KnownKeys<H> : never;

type Field<Declared extends boolean, Shape> = Declared extends true ? Shape : { [K in keyof Shape]?: never };

/** A result of status S, with a field for each header the pipeline sets from it. */
type ResultOfStatus<Op extends ContractOperation, S extends keyof Op['responses']> = {
  status: S;
  body: ResponseBody<ResponseOf<Op, S>>;
  /** Other response headers the contract declares for this status (such as `Company-Id`). */
  headers?: { [K in Exclude<ResponseHeaders<ResponseOf<Op, S>>, PipelineHeader>]?: string };
  /**
   * Writes only: what the first response shows beyond the stored (and replayed) body, added after
   * the transaction committed; used to show a new secret exactly once.
   */
  revealOnce?: (storedBody: ResponseBody<ResponseOf<Op, S>>) => ResponseBody<ResponseOf<Op, S>>;
} & Field<
  'ETag' extends ResponseHeaders<ResponseOf<Op, S>> ? true : false,
  /** Sent as `ETag: W/"<version>"`; or, for bytes that never change, as the strong `ETag: "<entityTag>"`. */
  { version: number; entityTag?: never } | { entityTag: string; version?: never }
> &
  Field<'Service-Effects' extends ResponseHeaders<ResponseOf<Op, S>> ? true : false, { effects: readonly string[] }> &
  Field<'Location' extends ResponseHeaders<ResponseOf<Op, S>> ? true : false, { /** Relative to the API's base URL. */ location: string }>;

export type OperationResult<Op extends ContractOperation> = { [S in SuccessStatus<Op>]: ResultOfStatus<Op, S> }[SuccessStatus<Op>];

/** What a handler reads of its request, validated against the contract (and coerced to the declared types). */
export interface OperationInput<Op extends ContractOperation> {
  params: PathParams<Op>;
  query: QueryParams<Op>;
  body: RequestBody<Op>;
}
