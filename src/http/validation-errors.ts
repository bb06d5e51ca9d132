/** Ajv errors as the `details` strings of the error body: one per problem, naming the field. */
import type { ErrorObject } from 'ajv';
import { ApiError, BadRequest, pathResourceNotFound, PreconditionRequired, ValidationFailed } from '../errors';
import { cutText, FIELD_NAME_CHARS } from '../validation/bounded-text';
import { FieldProblems } from '../validation/field-problems';
import { invalidKey } from './idempotency';
import type { DeclaredInput, DeclaredOperation } from './operation-registry';

const LOCATION_NAMES: Record<string, string> = { requestBody: '', query: 'query', path: 'path', header: 'header' };

/** The contracts' rule for free text (names, comments, address parts): `pattern: '\S'`, not blank. */
const isBlankText = (error: ErrorObject) => error.keyword === 'pattern' && (error.params as { pattern?: string }).pattern === '\\S';

export function describeValidationErrors(errors: ErrorObject[]): string[] {
  // An empty string breaks both minLength and the not-blank pattern: one problem, said once.
  const blank = new Set(errors.filter(isBlankText).map((error) => error.instancePath));
  const details = errors
    .filter((error) => !['anyOf', 'oneOf', 'if'].includes(error.keyword))
    .filter((error) => !(error.keyword === 'minLength' && blank.has(error.instancePath)))
    .map((error) => `${fieldPath(error)}: ${describe(error)}`);
  return [...new Set(details)].slice(0, 50);
}

function fieldPath(error: ErrorObject): string {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'));
  const location = segments.shift() ?? '';
  const extra =
    (error.params as { missingProperty?: string; additionalProperty?: string }).missingProperty ??
    (error.params as { additionalProperty?: string }).additionalProperty;
  // An unknown field's name is the partner's: echoed cut, so that fifty long names make a short error.
  if (extra !== undefined) segments.push(cutText(extra, FIELD_NAME_CHARS));
  const prefix = LOCATION_NAMES[location] ?? location;
  if (location === 'header' && segments.length > 0) return segments.join('.');
  const joined = segments
    .map((segment) => (/^\d+$/.test(segment) ? `[${segment}]` : segment))
    .join('.')
    .replace(/\.\[/g, '[');
  if (!prefix) return joined || 'body';
  return joined ? `${prefix}.${joined}` : prefix;
}

function describe(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      // A person's CPF/CNPJ identifies them; patch shapes leave it out on purpose.
      return (error.params as { additionalProperty?: string }).additionalProperty === 'cpfCnpj'
        ? 'cannot be changed (it identifies the person)'
        : 'unknown field';
    case 'type':
      return `must be ${String((error.params as { type: string | string[] }).type).replace(',', ' or ')}`;
    case 'enum':
      return `must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'format':
      return `invalid ${(error.params as { format: string }).format}`;
    case 'multipleOf':
      return 'must have at most 2 decimal places';
    case 'pattern':
      return isBlankText(error) ? 'must contain a character other than whitespace' : (error.message ?? 'is invalid');
    default:
      return error.message ?? 'is invalid';
  }
}

/**
 * The answer to a request that failed schema validation. A path id of the wrong shape cannot name
 * an existing resource: 404, as the contracts say (the co-tenant's CPF/CNPJ is the exception the
 * partner contract makes: malformed is 400). Header problems get their own codes.
 */
export function validationError(errors: ErrorObject[], ruleProblems: string[]): ApiError {
  const pathError = errors.find((error) => error.instancePath.startsWith('/path/') && !error.instancePath.startsWith('/path/cpfCnpj'));
  if (pathError) return pathResourceNotFound(pathError.instancePath.split('/')[2]!);
  const missingHeader = (name: string) =>
    errors.some((error) => error.instancePath === '/header' && (error.params as { missingProperty?: string }).missingProperty === name);
  if (missingHeader('idempotency-key')) {
    return new BadRequest('idempotency_key_required', 'This write requires an Idempotency-Key header.', ['Idempotency-Key: is required']);
  }
  if (errors.some((error) => error.instancePath === '/header/idempotency-key')) return invalidKey();
  // If-Match is declared required where the contract demands it; missing is 428, not a 400.
  if (missingHeader('if-match')) return new PreconditionRequired();
  if (errors.some((error) => error.instancePath === '/header/if-match')) {
    return new BadRequest('if_match_invalid', 'If-Match must hold ETags of the form W/"<version>".', ['If-Match: must be a list of entity tags']);
  }
  return new ValidationFailed([...new Set([...describeValidationErrors(errors), ...ruleProblems])]);
}

/** What the operation's normalise step makes of a validated request; 400 with every problem it finds. */
export function normalised(normalise: NonNullable<DeclaredOperation<unknown>['normalise']>, input: DeclaredInput): unknown {
  const problems = new FieldProblems();
  const result = normalise(input, problems);
  problems.throwIfAny();
  return result;
}

/**
 * The problems the operation's normalise step finds in a request that failed the schema, for the
 * fields the schema did not already report: the same step, run on what was sent (a body that is not
 * an object is looked at as an empty one).
 */
export function problemsBeside<Work>(declared: DeclaredOperation<Work>, input: DeclaredInput, errors: ErrorObject[]): string[] {
  if (!declared.normalise) return [];
  const problems = new FieldProblems();
  const body = input.body !== null && typeof input.body === 'object' && !Array.isArray(input.body) ? input.body : {};
  try {
    declared.normalise({ ...input, body }, problems);
  } catch {
    // A request the schema refused may hold anything: what the step trips over is the schema's finding.
  }
  const schemaPaths = new Set(describeValidationErrors(errors).map((detail) => detail.split(':')[0]));
  return problems.list().filter((detail) => !schemaPaths.has(detail.split(':')[0]));
}
