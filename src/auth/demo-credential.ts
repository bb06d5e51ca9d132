/**
 * Quick start: a sandbox credential for the demo agency, created at start-up and shown once on the
 * console (never in the logs). The previous demo credential is revoked, so only one works at a time.
 */
import type { Config } from '../config';
import type { Database } from '../database/prisma-client';
import { createCredential } from './credentials';
import { SCOPES } from './scopes';

const DEMO_COMPANY = 'demo-agency';
const DEMO_NAME = 'Demo credential';

export async function ensureDemoCredential(db: Database, config: Config, origin: string): Promise<void> {
  const now = new Date();
  await db.credential.updateMany({
    where: { companyId: DEMO_COMPANY, displayName: DEMO_NAME, revokedAt: null },
    data: { revokedAt: now },
  });
  const credential = await createCredential(db, config.ENVIRONMENT, {
    companyId: DEMO_COMPANY,
    companyName: 'Demo Imobiliária',
    displayName: DEMO_NAME,
    scopes: [...SCOPES],
    createdBy: 'quick-start',
  });
  const tokenUrl = `${origin}${config.AUTH_BASE_PATH}/oauth2/token`;
  const apiUrl = `${origin}${config.API_BASE_PATH}`;
  console.log(
    [
      '',
      '================ Demo credential (shown once) ================',
      `company:       ${DEMO_COMPANY}`,
      `client_id:     ${credential.clientId}`,
      `client_secret: ${credential.clientSecret}`,
      `scopes:        ${credential.scopes.join(' ')}`,
      '',
      'Get a token:',
      `  curl -s -u '${credential.clientId}:<client_secret>' -d grant_type=client_credentials ${tokenUrl}`,
      'Call the API:',
      `  curl -s -H "Authorization: Bearer <access_token>" ${apiUrl}/v1/rental-insurances`,
      `Contract: ${apiUrl}/openapi.json`,
      '===============================================================',
      '',
    ].join('\n'),
  );
}
