/**
 * Typed errors thrown by services and the HTTP pipeline. One mapper (http/error-response.ts) turns
 * them into the specification's error body; `code` values are the stable ones listed in the contract.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: string[],
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationFailed extends ApiError {
  constructor(details: string[], message = 'The request is invalid.', code = 'validation_failed') {
    super(400, code, message, details);
  }
}

export class BadRequest extends ApiError {
  constructor(code: string, message: string, details?: string[]) {
    super(400, code, message, details);
  }
}

/** 404; the message names what was not found (every resource has its own). */
export class NotFound extends ApiError {
  constructor(message: string, code = 'not_found') {
    super(404, code, message);
  }
}

export class Conflict extends ApiError {
  constructor(code: string, message: string, headers: Record<string, string> = {}) {
    super(409, code, message, undefined, headers);
  }
}

export class PreconditionFailed extends ApiError {
  constructor(currentEtag: string) {
    super(
      412,
      'precondition_failed',
      `If-Match does not hold the current version; the current ETag is ${currentEtag}.`,
      [`If-Match: current ETag is ${currentEtag}`],
      { ETag: currentEtag },
    );
  }
}

export class PreconditionRequired extends ApiError {
  constructor() {
    super(428, 'precondition_required', 'This write requires an If-Match header with the current ETag.');
  }
}

/** The guarantee the request names does not exist, or is not the caller's (the same answer). */
export const rentalInsuranceNotFound = (): NotFound => new NotFound('Rental insurance not found.');

/** What each path parameter of the documents names, for the 404 of a value that cannot name one. */
const PATH_RESOURCES: Record<string, string> = {
  id: 'Rental insurance',
  cpfCnpj: 'Co-tenant',
  endpointId: 'Webhook endpoint',
  deliveryId: 'Webhook delivery',
  credentialId: 'Credential',
  secretId: 'Secret',
  documentId: 'Document',
};

/** 404 for path parameter `name` whose value names nothing (malformed, or not canonical). */
export function pathResourceNotFound(name: string): NotFound {
  const resource = PATH_RESOURCES[name];
  return new NotFound(resource ? `${resource} not found.` : 'Nothing exists at this path.');
}
