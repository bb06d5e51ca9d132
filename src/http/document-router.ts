/**
 * openapi-backend's router, through its public class and properties. The library's router flattens
 * the whole document with lodash on every `getOperations()` call, and its `matchOperation` calls it
 * twice per request, then compiles one regular expression per operation of the document and sorts
 * the matches, on every request. Our document never changes after start-up, so this subclass
 * computes the operation list, the patterns and their specificity order once, and matches with the
 * library's own rules: an exact path first, then templates (each `{name}` one path segment), most
 * specific first; no path is 404, a path without the method is 405, with the library's messages.
 * The validator gets the same router, so a request is matched and parsed against one list.
 */
import OpenAPIBackend, { OpenAPIRouter, type Document, type Operation, type Request } from 'openapi-backend';

interface Route {
  operation: Operation<Document>;
  pattern: RegExp;
}

const NO_ROUTE = '404-notFound: no route matches request';
const NO_METHOD = '405-methodNotAllowed: this method is not registered for the route';

class DocumentRouter extends OpenAPIRouter<Document> {
  private operations?: Operation<Document>[];
  private exact?: Map<string, Operation<Document>>;
  private routes?: Route[];

  override getOperations(): Operation<Document>[] {
    return (this.operations ??= super.getOperations());
  }

  override matchOperation(req: Request): Operation<Document> | undefined;
  override matchOperation(req: Request, strict: boolean): Operation<Document>;
  override matchOperation(req: Request, strict?: boolean): Operation<Document> | undefined {
    const request = this.normalizeRequest(req);
    const fail = (message: string) => {
      if (strict) throw Error(message);
      return undefined;
    };
    if (!this.underApiRoot(request.path)) return fail(NO_ROUTE);
    const path = this.normalizePath(request.path);
    const exact = this.exactMatches().get(`${request.method} ${path}`);
    if (exact) return exact;
    let pathMatched = false;
    for (const route of this.templateRoutes()) {
      if (!route.pattern.test(path)) continue;
      if (route.operation.method === request.method) return route.operation;
      pathMatched = true;
    }
    return fail(pathMatched ? NO_METHOD : NO_ROUTE);
  }

  /** The library's rule (its own method is private): the root itself or a path below it, on a segment boundary. */
  private underApiRoot(path: string): boolean {
    const root = this.apiRoot.replace(/\/$/, '');
    return root === '' ? path.startsWith('/') : path === root || path.startsWith(`${root}/`);
  }

  private exactMatches(): Map<string, Operation<Document>> {
    if (!this.exact) {
      this.exact = new Map();
      // The first operation of a path and method wins, as the library's `find` would have it.
      for (const operation of this.getOperations()) {
        const key = `${operation.method} ${operation.path}`;
        if (!this.exact.has(key)) this.exact.set(key, operation);
      }
    }
    return this.exact;
  }

  /** Most specific first (the longest path without its templates); the sort is stable, as lodash's orderBy. */
  private templateRoutes(): Route[] {
    return (this.routes ??= this.getOperations()
      .map((operation) => ({ operation, pattern: patternOf(operation.path) }))
      .sort((a, b) => specificity(b.operation.path) - specificity(a.operation.path)));
  }
}

/** The library's template-to-pattern rule: each `{name}` is one path segment, the rest is literal. */
function patternOf(path: string): RegExp {
  const literal = path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${literal}$`);
}

function specificity(path: string): number {
  return path.replace(/\{.*?\}/g, '').length;
}

/** Gives an initialised backend, and its validator, a router that compiles the document's routes once. */
export function useDocumentRouter(api: OpenAPIBackend): void {
  api.router = new DocumentRouter({ definition: api.definition, apiRoot: api.apiRoot, ignoreTrailingSlashes: api.ignoreTrailingSlashes });
  if (api.validator) api.validator.router = api.router;
}
