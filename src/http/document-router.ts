/**
 * Routing of one API document, computed once at start-up from openapi-backend's operation list:
 * an exact path first, then templates (each `{name}` one path segment), most specific first, as
 * openapi-backend's own router matches; a trailing slash is ignored. The match also gives the path
 * parameters (percent-decoded), so a request is parsed once (pipeline.ts), not again by the library.
 */
import type { Document, Operation } from 'openapi-backend';
import { ApiError, NotFound, pathResourceNotFound } from '../errors';

export interface Route {
  operation: Operation<Document>;
  /** The path parameters as sent (percent-decoded strings), before validation coerces them. */
  params: Record<string, string>;
}

interface Template {
  operation: Operation<Document>;
  pattern: RegExp;
  names: string[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export class DocumentRouter {
  private readonly exact = new Map<string, Operation<Document>>();
  private readonly templates: Template[];

  constructor(operations: Operation<Document>[]) {
    // The first operation of a path and method wins, as the library's `find` would have it.
    for (const operation of operations) {
      const key = `${operation.method} ${operation.path}`;
      if (!this.exact.has(key)) this.exact.set(key, operation);
    }
    // Most specific first (the longest path without its templates); the sort is stable.
    this.templates = operations
      .filter((operation) => operation.path.includes('{'))
      .map((operation) => ({ operation, ...patternOf(operation.path) }))
      .sort((a, b) => specificity(b.operation.path) - specificity(a.operation.path));
  }

  /** The operation of `method` (lower case) at `path`; 404 when no path matches, 405 (naming `requestMethod`) when the path has not that method. */
  route(method: string, rawPath: string, requestMethod: string): Route {
    const path = normalised(rawPath);
    const exact = this.exact.get(`${method} ${path}`);
    if (exact) return { operation: exact, params: {} };
    for (const template of this.templates) {
      if (template.operation.method !== method) continue;
      const match = template.pattern.exec(path);
      if (match) return { operation: template.operation, params: decoded(template.names, match) };
    }
    const allowed = this.allowedMethods(path);
    if (allowed.length === 0) throw new NotFound('No operation exists at this path.', 'route_not_found');
    // Every GET also answers HEAD (pipeline.ts).
    if (allowed.includes('get')) allowed.splice(allowed.indexOf('get') + 1, 0, 'head');
    throw new ApiError(405, 'method_not_allowed', `This path does not accept ${requestMethod}.`, undefined, {
      Allow: allowed.map((name) => name.toUpperCase()).join(', '),
    });
  }

  private allowedMethods(path: string): string[] {
    return METHODS.filter(
      (method) => this.exact.has(`${method} ${path}`) || this.templates.some((t) => t.operation.method === method && t.pattern.test(path)),
    );
  }
}

function normalised(path: string): string {
  let result = path.startsWith('/') ? path : `/${path}`;
  while (result.length > 1 && result.endsWith('/')) result = result.slice(0, -1);
  return result;
}

/** The library's template-to-pattern rule: each `{name}` is one path segment, the rest is literal. */
function patternOf(path: string): { pattern: RegExp; names: string[] } {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  const literal = path
    .split(/\{[^}]+\}/)
    .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('([^/]+)');
  return { pattern: new RegExp(`^${literal}$`), names };
}

/** A percent-encoding that does not decode names no resource: 404 naming the parameter's resource. */
function decoded(names: string[], match: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  names.forEach((name, index) => {
    try {
      params[name] = decodeURIComponent(match[index + 1]!);
    } catch {
      throw pathResourceNotFound(name);
    }
  });
  return params;
}

function specificity(path: string): number {
  return path.replace(/\{.*?\}/g, '').length;
}
