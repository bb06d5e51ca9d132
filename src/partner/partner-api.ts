/** The partner API: openapi/partner.yaml and the declaration of every one of its operations. */
import type { Config } from '../config';
import { loadContract } from '../contract/load-contract';
import { forEnvironment, sandboxOnlyOperationIds } from '../contract/sandbox-only';
import { lifecycleJobs } from '../sandbox/lifecycle-jobs';
import { sandboxOperations } from './sandbox-operations';
import { publishedDocumentOperations } from './published-document';
import { financialOperations } from './financial-operations';
import { guaranteeOperations } from './guarantee-operations';
import { lifecycleOperations } from './lifecycle-operations';
import { webhookOperations } from './webhook-operations';
import { requestLogOperations } from './request-log-operations';
import { secretBox } from '../webhooks/secret-box';
import { urlPolicy } from '../webhooks/url-safety';
import type { ApiDefinition } from '../http/pipeline';
import { partnerWork, type PartnerWork } from './partner-work';
import { documentOperations } from './document-operations';
import { NO_DOCUMENT_SERVICES, type DocumentServices } from '../guarantees/documents/document-services';

/** `documents`: the process's document services (app.ts); absent only where the API is built to be checked, never served. */
export function partnerApi(config: Config, documents: DocumentServices = NO_DOCUMENT_SERVICES): ApiDefinition<PartnerWork> {
  const contract = loadContract('partner');
  // Production neither routes nor declares the sandbox-only operations (src/contract/sandbox-only.ts).
  const sandboxOnly = config.ENVIRONMENT === 'production' ? sandboxOnlyOperationIds(contract) : new Set<string>();
  const operations = [
    ...guaranteeOperations,
    ...lifecycleOperations,
    ...documentOperations,
    ...financialOperations,
    ...webhookOperations,
    ...requestLogOperations,
    ...sandboxOperations,
    ...publishedDocumentOperations({ environment: config.ENVIRONMENT, apiBasePath: config.API_BASE_PATH, authBasePath: config.AUTH_BASE_PATH }),
  ];
  return {
    name: 'openapi/partner.yaml',
    document: forEnvironment(contract, config.ENVIRONMENT),
    operations: operations.filter((operation) => !sandboxOnly.has(operation.operationId)),
    workFor: partnerWork(
      { commentQuotaPerDay: config.COMMENT_QUOTA_PER_DAY },
      { box: secretBox(config), policy: urlPolicy(config) },
      documents,
      config.ENVIRONMENT === 'sandbox' ? lifecycleJobs(config) : [],
    ),
  };
}
