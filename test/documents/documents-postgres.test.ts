/** The documents' story with the default store: PostgreSQL, the bytes in document_chunks (document-suite.ts). */
import { documentSuite } from './document-suite';

documentSuite({
  env: () => ({}),
  storedObjects: async (world) => (await world.db.documentChunk.groupBy({ by: ['storageKey'] })).length,
});
