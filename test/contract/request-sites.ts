/**
 * Which HTTP requests a test file makes, found in its source (not a test file itself).
 *
 * It finds every supertest request (`request(app).get(path)`, `request(app)[method](path)`) in the
 * test file and in the helpers it calls, and works out the method and the path with the static
 * evaluator of static-evaluator.ts: string constants, template literals, `+`, conditionals, the
 * helpers' parameters and what path-building helpers return are followed across local imports
 * under test/; helper functions and the methods of objects that helpers return
 * (`asPartner(world, agency).history(id)`) are followed into their bodies with the arguments of the
 * call. Whatever cannot be known statically (a variable id, a loop variable) becomes a wildcard,
 * which may only stand for a `{parameter}` of a path template, never for a fixed segment: a request
 * is credited to an operation only when its method and every fixed segment of the path are known
 * and match.
 */
import path from 'node:path';
import ts from 'typescript';
import { MAX_DEPTH, StaticEvaluator, WILDCARD, type Bindings } from './static-evaluator';
import { isFunctionLike } from './request-sites-syntax';

export { WILDCARD } from './static-evaluator';

const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

export interface RequestSite {
  method: string;
  /** Path with WILDCARD where unknown; may carry a query string. */
  path: string;
  /** File:line of the request call, and the helper calls that led to it from the test file. */
  where: string;
}

export class RequestSiteFinder extends StaticEvaluator {
  /** Every request the file makes directly or through the helpers it calls. */
  sitesOf(file: string): RequestSite[] {
    const source = this.source(path.resolve(file));
    if (!source) return [];
    const sites: RequestSite[] = [];
    this.walk(source, new Map(), [], sites, 0);
    return sites;
  }

  /**
   * In the test file everything is visited (test callbacks are functions). In a helper's body,
   * functions it only defines (the methods of the client object a factory returns) are not: they
   * count where they are called.
   */
  private walk(node: ts.Node, bindings: Bindings, stack: ts.Node[], sites: RequestSite[], depth: number): void {
    const visit = (child: ts.Node): void => {
      if (depth > 0 && child !== node && isFunctionLike(child)) return;
      if (ts.isCallExpression(child)) this.call(child, bindings, stack, sites, depth);
      ts.forEachChild(child, visit);
    };
    visit(node);
  }

  private call(call: ts.CallExpression, bindings: Bindings, stack: ts.Node[], sites: RequestSite[], depth: number): void {
    const methods = this.requestMethods(call, bindings);
    if (methods) {
      const paths = call.arguments[0] ? this.evaluate(call.arguments[0], bindings, 0) : [WILDCARD];
      const where = [...stack.map((n) => this.position(n)), this.position(call)].join(' -> ');
      for (const method of methods) for (const p of paths) sites.push({ method, path: p, where });
      return;
    }
    if (depth >= MAX_DEPTH) return;
    const target = this.calledFunction(call.expression, bindings);
    if (!target?.body || stack.includes(target)) return;
    const inner: Bindings = new Map(bindings);
    target.parameters.forEach((parameter, index) => {
      const argument = call.arguments[index];
      inner.set(
        parameter,
        argument ? this.evaluate(argument, bindings, 0) : parameter.initializer ? this.evaluate(parameter.initializer, bindings, 0) : [WILDCARD],
      );
    });
    this.walk(target.body, inner, [...stack, call], sites, depth + 1);
  }

  /** The HTTP methods of a supertest request call (`request(app).get(...)`), or undefined. */
  private requestMethods(call: ts.CallExpression, bindings: Bindings): string[] | undefined {
    const callee = call.expression;
    let receiver: ts.Expression;
    let methods: string[];
    if (ts.isPropertyAccessExpression(callee)) {
      if (!HTTP_METHODS.has(callee.name.text)) return undefined;
      receiver = callee.expression;
      methods = [callee.name.text];
    } else if (ts.isElementAccessExpression(callee)) {
      receiver = callee.expression;
      methods = this.evaluate(callee.argumentExpression, bindings, 0)
        .map((m) => m.toLowerCase())
        .filter((m) => HTTP_METHODS.has(m));
    } else {
      return undefined;
    }
    if (!ts.isCallExpression(receiver) || !ts.isIdentifier(receiver.expression)) return undefined;
    const declaration = this.declarationOf(receiver.expression);
    return declaration && declaration.kind === 'import' && declaration.module === 'supertest' ? methods : undefined;
  }

  private position(node: ts.Node): string {
    const source = node.getSourceFile();
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    return `${path.relative(process.cwd(), source.fileName)}:${line + 1}`;
  }
}

/**
 * Whether a request site calls the operation `method path` served under `basePath`: same method,
 * same number of segments, every fixed segment equal (no wildcard in it), and a non-empty value
 * for every `{parameter}`. The query string is ignored.
 */
export function siteMatches(site: RequestSite, method: string, basePath: string, template: string): boolean {
  if (site.method !== method.toLowerCase()) return false;
  const actual = site.path.split(/[?#]/)[0]!.split('/');
  const expected = `${basePath}${template}`.split('/');
  if (actual.length !== expected.length) return false;
  return expected.every((segment, index) => {
    const value = actual[index]!;
    if (/^\{[^}]+\}$/.test(segment)) return value.length > 0;
    return value === segment;
  });
}
