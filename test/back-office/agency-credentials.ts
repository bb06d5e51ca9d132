/** Helpers of the credential administration tests: a credential created by a director through the back-office API. */
import { newKey } from '../support/factories';
import type { opsClient } from './ops-support';

export const SECRET = /^sbx_cs_[A-Za-z0-9_-]{43}$/;

export interface CredentialBody {
  id: string;
  clientId: string;
  secrets: Array<{ id: string; revokedAt: string | null }>;
  revokedAt: string | null;
}

export async function createViaApi(
  ops: ReturnType<typeof opsClient>,
  scopes = ['ri:rental-insurances:read', 'ri:rental-insurances:write'],
  key = newKey(),
) {
  const response = await ops.post('/v1/agency/credentials', { displayName: 'ERP Imobiliária', scopes }, key);
  if (response.status !== 201) throw new Error(`create failed: ${response.status} ${response.text}`);
  return { response, credential: response.body.credential as CredentialBody, secret: response.body.secret as { id: string; clientSecret: string } };
}
