/** The internal back-office API (back office): openapi/back-office.yaml and the declaration of every one of its operations. */
import type { Config } from '../../config';
import { loadContract } from '../../contract/load-contract';
import type { ApiDefinition } from '../../http/pipeline';
import { backOfficeWork, type BackOfficeWork } from './back-office-work';
import { credentialOperations } from './credential-operations';
import { reviewOperations } from './review-operations';
import { webhookOperations } from './webhook-operations';
import { requestLogOperations } from './request-log-operations';
import { staffDocumentOperations } from './document-operations';
import { NO_DOCUMENT_SERVICES, type DocumentServices } from '../../documents/document-services';

/** `documents`: the process's document services (app.ts); absent only where the API is built to be checked, never served. */
export function backOfficeApi(config: Config, documents: DocumentServices = NO_DOCUMENT_SERVICES): ApiDefinition<BackOfficeWork> {
  return {
    name: 'openapi/back-office.yaml',
    document: loadContract('back-office'),
    operations: [...reviewOperations, ...staffDocumentOperations, ...credentialOperations, ...webhookOperations, ...requestLogOperations],
    workFor: backOfficeWork(config.ENVIRONMENT, documents),
  };
}
