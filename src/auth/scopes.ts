/** The OAuth scopes of the partner API (declared in openapi/partner.yaml's security scheme). */
export const SCOPES = [
  'ri:rental-insurances:read',
  'ri:rental-insurances:write',
  'ri:financial:read',
  'ri:webhooks:manage',
  'ri:events:read',
  'ri:request-log:read',
] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

// Back office (issue #5): the back-office API's scopes (openapi/back-office.yaml's security scheme).
// Each scope belongs to one kind of credential and is never grantable to another kind: partner
// scopes only to partner credentials, staff scopes only to staff, the director's only to directors.

export type CredentialKind = 'partner' | 'staff' | 'director';

/** Staff of the service: review and lifecycle operations, ledger postings, credential oversight. */
export const STAFF_SCOPES = ['ops:guarantees:review', 'ops:ledger:write', 'ops:credentials:admin'] as const;
/** An agency's director: manages the agency's partner credentials; reads the agency's guarantees, request log and webhooks, and redelivers (issue 37). */
export const DIRECTOR_SCOPES = ['ops:credentials:manage', 'ops:agency:read', 'ops:agency:webhooks'] as const;
export const OPERATIONS_SCOPES = [...STAFF_SCOPES, ...DIRECTOR_SCOPES] as const;
export type OperationsScope = (typeof OPERATIONS_SCOPES)[number];

export const SCOPES_BY_KIND: Record<CredentialKind, readonly string[]> = {
  partner: SCOPES,
  staff: STAFF_SCOPES,
  director: DIRECTOR_SCOPES,
};

/** True when `value` is a scope that a credential of `kind` may hold. */
export function isScopeFor(kind: CredentialKind, value: string): boolean {
  return SCOPES_BY_KIND[kind].includes(value);
}
