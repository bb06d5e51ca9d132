/** What the APIs' documents need, made once per process (app.ts): the stores, the contract issuer and the rules. */
import type { Config } from '../../config';
import type { Database } from '../../database/prisma-client';
import type { UploadStaging } from '../../http/multipart-body';
import type { DocumentRules } from './attach-documents';
import { contractIssuer, type ContractIssuer } from './contract-issuer';
import { documentStores, type DocumentStores } from './document-store';
import { uploadStaging } from './upload-staging';

export interface DocumentServices {
  stores: DocumentStores;
  contracts: ContractIssuer;
  rules: DocumentRules;
  staging: UploadStaging;
}

export async function documentServices(
  db: Database,
  config: Pick<Config, 'DOCUMENT_STORE_URL' | 'DOCUMENT_BYTES_PER_AGENCY_PER_DAY'>,
): Promise<DocumentServices> {
  const stores = await documentStores(db, config.DOCUMENT_STORE_URL);
  return {
    stores,
    contracts: contractIssuer(db, stores),
    rules: { bytesPerDay: config.DOCUMENT_BYTES_PER_AGENCY_PER_DAY },
    staging: uploadStaging(db, stores, config.DOCUMENT_BYTES_PER_AGENCY_PER_DAY),
  };
}

/** For an API built without a database (registry checks in tests): any use is a programming error. */
export const NO_DOCUMENT_SERVICES: DocumentServices = new Proxy({} as DocumentServices, {
  get() {
    throw new Error('This API was built without document services');
  },
});
