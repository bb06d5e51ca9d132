/** The internal back-office API (back office): openapi/back-office.yaml and the declaration of every one of its operations. */
import type { Config } from '../../config';
import type { Database } from '../../database/prisma-client';
import { loadContract } from '../../contract/load-contract';
import type { ApiDefinition } from '../../http/pipeline';
import { backOfficeWork, type BackOfficeWork } from './back-office-work';
import { credentialOperations } from './credential-operations';
import { reviewOperations } from './review-operations';
import { webhookOperations } from './webhook-operations';
import { requestLogOperations } from './request-log-operations';
import { deskOperations } from './desk-operations';
import { agencyViewOperations } from './agency-view-operations';
import { directorOperations } from './director-operations';
import { secretBox } from '../../webhooks/secret-box';
import { urlPolicy } from '../../webhooks/url-safety';
import { staffDocumentOperations } from './document-operations';
import { NO_DOCUMENT_SERVICES, type DocumentServices } from '../../guarantees/documents/document-services';

/** `documents`: the process's document services (app.ts); absent only where the API is built to be checked, never served. `db`: where refusals are audited outside the refused request's transaction (absent: not audited; tests listing operations). */
export function backOfficeApi(config: Config, documents: DocumentServices = NO_DOCUMENT_SERVICES, db?: Database): ApiDefinition<BackOfficeWork> {
  return {
    name: 'openapi/back-office.yaml',
    document: loadContract('back-office'),
    operations: [
      ...reviewOperations,
      ...deskOperations,
      ...staffDocumentOperations,
      ...credentialOperations,
      ...webhookOperations,
      ...requestLogOperations,
      ...agencyViewOperations,
      ...directorOperations,
    ],
    workFor: backOfficeWork(
      config.ENVIRONMENT,
      config.CREDENTIALS_PER_AGENCY,
      { box: secretBox(config), policy: urlPolicy(config) },
      documents,
      { consoleBasePath: config.CONSOLE_BASE_PATH, invitationHours: config.CONSOLE_INVITATION_HOURS },
      db,
    ),
  };
}
