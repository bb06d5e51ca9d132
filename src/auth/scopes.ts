/** The OAuth scopes of the partner API (declared in openapi/partner.yaml's security scheme). */
export const SCOPES = ['ri:rental-insurances:read', 'ri:rental-insurances:write', 'ri:financial:read'] as const;
export type Scope = (typeof SCOPES)[number];

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}
