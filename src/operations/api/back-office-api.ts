/** The internal operations API (back office): openapi/operations.yaml and the declaration of every one of its operations. */
import type { Config } from '../../config';
import { loadContract } from '../../contract/load-contract';
import type { ApiDefinition } from '../../http/pipeline';
import { backOfficeWork, type BackOfficeWork } from './back-office-work';
import { credentialOperations } from './credential-operations';
import { reviewOperations } from './review-operations';
import { webhookOperations } from './webhook-operations';

export function backOfficeApi(config: Config): ApiDefinition<BackOfficeWork> {
  return {
    name: 'openapi/operations.yaml',
    document: loadContract('operations'),
    operations: [...reviewOperations, ...credentialOperations, ...webhookOperations],
    workFor: backOfficeWork(config.ENVIRONMENT),
  };
}
