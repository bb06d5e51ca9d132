/** The partner API: openapi/partner.yaml and the declaration of every one of its operations. */
import type { Config } from '../config';
import { loadContract } from '../contract/load-contract';
import { publishedDocumentOperations } from './published-document';
import { financialOperations } from './financial-operations';
import { guaranteeOperations } from './guarantee-operations';
import { lifecycleOperations } from './lifecycle-operations';
import { webhookOperations } from './webhook-operations';
import { secretBox } from '../webhooks/secret-box';
import { urlPolicy } from '../webhooks/url-safety';
import type { ApiDefinition } from '../http/pipeline';
import { partnerWork, type PartnerWork } from './unit-of-work';

export function partnerApi(config: Config): ApiDefinition<PartnerWork> {
  return {
    name: 'openapi/partner.yaml',
    document: loadContract('partner'),
    operations: [
      ...guaranteeOperations,
      ...lifecycleOperations,
      ...financialOperations,
      ...webhookOperations,
      ...publishedDocumentOperations({ environment: config.ENVIRONMENT, apiBasePath: config.API_BASE_PATH, authBasePath: config.AUTH_BASE_PATH }),
    ],
    workFor: partnerWork({ commentQuotaPerDay: config.COMMENT_QUOTA_PER_DAY }, { box: secretBox(config), policy: urlPolicy(config) }),
  };
}
