/**
 * openapi-backend's router, through its public class: `OpenAPIRouter.getOperations()` flattens
 * the whole document with lodash on every call, and `matchOperation` calls it twice per request,
 * the largest single cost of a get (bench/results.md). Our document never changes after
 * start-up, so this subclass computes the list once. Routing itself (templates, specificity, 404
 * and 405) is the library's own `matchOperation`, unchanged.
 */
import OpenAPIBackend, { OpenAPIRouter, type Document, type Operation } from 'openapi-backend';

class DocumentRouter extends OpenAPIRouter<Document> {
  private operations?: Operation<Document>[];

  override getOperations(): Operation<Document>[] {
    return (this.operations ??= super.getOperations());
  }
}

/** Gives an initialised backend a router whose operation list is computed once. */
export function useDocumentRouter(api: OpenAPIBackend): void {
  api.router = new DocumentRouter({ definition: api.definition, apiRoot: api.apiRoot, ignoreTrailingSlashes: api.ignoreTrailingSlashes });
}
