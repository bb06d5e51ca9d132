/**
 * Which HTTP requests a test file makes, found in its source (not a test file itself).
 *
 * A small static evaluator over the TypeScript syntax tree: it finds every supertest request
 * (`request(app).get(path)`, `request(app)[method](path)`), in the test file and in the helpers it
 * calls, and works out the method and the path. String constants, template literals, `+`,
 * conditionals and the helpers' parameters are followed across local imports under test/; helper
 * functions and the methods of objects that helpers return (`partnerClient(t, a).history(id)`)
 * are followed into their bodies with the arguments of the call. Whatever cannot be known
 * statically (a variable id, a loop variable) becomes a wildcard, which may only stand for a
 * `{parameter}` of a path template, never for a fixed segment: a request is credited to an
 * operation only when its method and every fixed segment of the path are known and match.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Stands for any text that the evaluator cannot know. */
export const WILDCARD = '\u0000';
const MAX_VALUES = 16;
const MAX_DEPTH = 6;
const HTTP_METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

export interface RequestSite {
  method: string;
  /** Path with WILDCARD where unknown; may carry a query string. */
  path: string;
  /** File:line of the request call, and the helper calls that led to it from the test file. */
  where: string;
}

type Values = string[];
type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;
type Bindings = Map<ts.Node, Values>;

export class RequestSiteFinder {
  private readonly sources = new Map<string, ts.SourceFile>();

  /** @param scope only files under this directory are read (imports elsewhere are opaque). */
  constructor(private readonly scope: string) {}

  /** Every request the file makes directly or through the helpers it calls. */
  sitesOf(file: string): RequestSite[] {
    const source = this.source(path.resolve(file));
    if (!source) return [];
    const sites: RequestSite[] = [];
    this.walk(source, new Map(), [], sites, 0);
    return sites;
  }

  private source(file: string): ts.SourceFile | undefined {
    if (!file.startsWith(this.scope) || !fs.existsSync(file)) return undefined;
    let source = this.sources.get(file);
    if (!source) {
      source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
      this.sources.set(file, source);
    }
    return source;
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
      inner.set(parameter, argument ? this.evaluate(argument, bindings, 0) : parameter.initializer ? this.evaluate(parameter.initializer, bindings, 0) : [WILDCARD]);
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
      methods = this.evaluate(callee.argumentExpression, bindings, 0).map((m) => m.toLowerCase()).filter((m) => HTTP_METHODS.has(m));
    } else {
      return undefined;
    }
    if (!ts.isCallExpression(receiver) || !ts.isIdentifier(receiver.expression)) return undefined;
    const declaration = this.declarationOf(receiver.expression);
    return declaration && declaration.kind === 'import' && declaration.module === 'supertest' ? methods : undefined;
  }

  /** The function a call expression calls: a local or imported function, or a method of a helper's object. */
  private calledFunction(callee: ts.Expression, bindings: Bindings): FunctionLike | undefined {
    if (ts.isIdentifier(callee)) return this.functionOf(callee, 0);
    if (ts.isPropertyAccessExpression(callee)) {
      const object = this.objectOf(callee.expression, 0);
      if (!object) return undefined;
      for (const property of object.properties) {
        const name = property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)) ? property.name.text : undefined;
        if (name !== callee.name.text) continue;
        if (ts.isMethodDeclaration(property)) return property;
        if (ts.isPropertyAssignment(property)) return this.asFunction(property.initializer, 0);
        if (ts.isShorthandPropertyAssignment(property)) return this.functionOf(property.name, 0);
      }
    }
    void bindings;
    return undefined;
  }

  private functionOf(identifier: ts.Identifier, depth: number): FunctionLike | undefined {
    const declaration = this.declarationOf(identifier);
    if (!declaration || depth > MAX_DEPTH) return undefined;
    if (declaration.kind === 'import') {
      const exported = this.exported(declaration);
      if (!exported) return undefined;
      if (ts.isFunctionDeclaration(exported)) return exported;
      if (ts.isVariableDeclaration(exported) && exported.initializer) return this.asFunction(exported.initializer, depth + 1);
      return undefined;
    }
    const node = declaration.node;
    if (ts.isFunctionDeclaration(node)) return node;
    if (ts.isVariableDeclaration(node) && node.initializer) return this.asFunction(node.initializer, depth + 1);
    return undefined;
  }

  private asFunction(expression: ts.Expression, depth: number): FunctionLike | undefined {
    const inner = unwrap(expression);
    if (ts.isArrowFunction(inner) || ts.isFunctionExpression(inner)) return inner;
    if (ts.isIdentifier(inner)) return this.functionOf(inner, depth + 1);
    return undefined;
  }

  /** The object literal an expression stands for: a helper's returned object, through variables and assignments. */
  private objectOf(expression: ts.Expression, depth: number): ts.ObjectLiteralExpression | undefined {
    if (depth > MAX_DEPTH) return undefined;
    const inner = unwrap(expression);
    if (ts.isObjectLiteralExpression(inner)) return inner;
    if (ts.isCallExpression(inner)) {
      const target = this.calledFunction(inner.expression, new Map());
      if (!target?.body) return undefined;
      if (!ts.isBlock(target.body)) return this.objectOf(target.body, depth + 1);
      let found: ts.ObjectLiteralExpression | undefined;
      const visit = (node: ts.Node): void => {
        if (found || (node !== target.body && isFunctionLike(node))) return;
        if (ts.isReturnStatement(node) && node.expression) found = this.objectOf(node.expression, depth + 1);
        ts.forEachChild(node, visit);
      };
      visit(target.body);
      return found;
    }
    if (ts.isIdentifier(inner)) {
      const declaration = this.declarationOf(inner);
      if (!declaration) return undefined;
      if (declaration.kind === 'import') {
        const exported = this.exported(declaration);
        return exported && ts.isVariableDeclaration(exported) && exported.initializer ? this.objectOf(exported.initializer, depth + 1) : undefined;
      }
      if (ts.isVariableDeclaration(declaration.node)) {
        if (declaration.node.initializer) return this.objectOf(declaration.node.initializer, depth + 1);
        // `let partner: ...;` assigned later (in beforeAll): use the assignment in the same file.
        const assigned = findAssignment(inner.getSourceFile(), inner.text);
        return assigned ? this.objectOf(assigned, depth + 1) : undefined;
      }
    }
    return undefined;
  }

  /** Possible string values of an expression (WILDCARD for unknown parts). */
  private evaluate(expression: ts.Expression, bindings: Bindings, depth: number): Values {
    if (depth > MAX_DEPTH) return [WILDCARD];
    const e = unwrap(expression);
    if (ts.isStringLiteral(e) || ts.isNoSubstitutionTemplateLiteral(e) || ts.isNumericLiteral(e)) return [e.text];
    if (ts.isTemplateExpression(e)) {
      let values: Values = [e.head.text];
      for (const span of e.templateSpans) {
        values = product(values, this.evaluate(span.expression, bindings, depth + 1));
        values = product(values, [span.literal.text]);
      }
      return values;
    }
    if (ts.isBinaryExpression(e) && e.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      return product(this.evaluate(e.left, bindings, depth + 1), this.evaluate(e.right, bindings, depth + 1));
    }
    if (ts.isConditionalExpression(e)) {
      return unique([...this.evaluate(e.whenTrue, bindings, depth + 1), ...this.evaluate(e.whenFalse, bindings, depth + 1)]);
    }
    if (ts.isIdentifier(e)) return this.identifierValues(e, bindings, depth);
    if (ts.isCallExpression(e)) {
      if (ts.isIdentifier(e.expression) && ['encodeURIComponent', 'String'].includes(e.expression.text) && e.arguments[0]) {
        return this.evaluate(e.arguments[0], bindings, depth + 1).map((v) => (v.includes(WILDCARD) ? WILDCARD : encodeURIComponent(v)));
      }
      const target = this.calledFunction(e.expression, bindings);
      if (target?.body && !ts.isBlock(target.body)) {
        const inner: Bindings = new Map(bindings);
        target.parameters.forEach((parameter, index) => {
          const argument = e.arguments[index];
          inner.set(parameter, argument ? this.evaluate(argument, bindings, depth + 1) : [WILDCARD]);
        });
        return this.evaluate(target.body, inner, depth + 1);
      }
    }
    return [WILDCARD];
  }

  private identifierValues(identifier: ts.Identifier, bindings: Bindings, depth: number): Values {
    const declaration = this.declarationOf(identifier);
    if (!declaration) return [WILDCARD];
    if (declaration.kind === 'import') {
      const exported = this.exported(declaration);
      return exported && ts.isVariableDeclaration(exported) && exported.initializer && isConst(exported)
        ? this.evaluate(exported.initializer, bindings, depth + 1)
        : [WILDCARD];
    }
    const node = declaration.node;
    if (ts.isParameter(node)) return bindings.get(node) ?? [WILDCARD];
    if (ts.isVariableDeclaration(node) && node.initializer && isConst(node)) return this.evaluate(node.initializer, bindings, depth + 1);
    return [WILDCARD];
  }

  /** Lexical lookup of a name from where it is used: parameters, local declarations, imports. */
  private declarationOf(identifier: ts.Identifier): Declaration | undefined {
    const name = identifier.text;
    for (let scope: ts.Node | undefined = identifier.parent; scope; scope = scope.parent) {
      if (isFunctionLike(scope)) {
        const parameter = scope.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === name);
        if (parameter) return { kind: 'local', node: parameter };
      }
      if (ts.isBlock(scope) || ts.isSourceFile(scope) || ts.isModuleBlock(scope)) {
        for (const statement of scope.statements) {
          const found = declaredIn(statement, name);
          if (found) return found;
        }
      }
    }
    return undefined;
  }

  private exported(declaration: ImportedName): ts.Node | undefined {
    if (!declaration.module.startsWith('.')) return undefined;
    const base = path.resolve(path.dirname(declaration.from), declaration.module);
    const file = [`${base}.ts`, path.join(base, 'index.ts'), base].find((candidate) => fs.existsSync(candidate) && fs.statSync(candidate).isFile());
    const source = file ? this.source(file) : undefined;
    if (!source) return undefined;
    for (const statement of source.statements) {
      const found = declaredIn(statement, declaration.name);
      if (found && found.kind === 'local') return found.node;
    }
    return undefined;
  }

  private position(node: ts.Node): string {
    const source = node.getSourceFile();
    const { line } = source.getLineAndCharacterOfPosition(node.getStart());
    return `${path.relative(process.cwd(), source.fileName)}:${line + 1}`;
  }
}

interface LocalName {
  kind: 'local';
  node: ts.Node;
}
interface ImportedName {
  kind: 'import';
  module: string;
  name: string;
  from: string;
}
type Declaration = LocalName | ImportedName;

function declaredIn(statement: ts.Statement, name: string): Declaration | undefined {
  if (ts.isVariableStatement(statement)) {
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return { kind: 'local', node: declaration };
    }
  }
  if (ts.isFunctionDeclaration(statement) && statement.name?.text === name) return { kind: 'local', node: statement };
  if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier) && statement.importClause) {
    const module = statement.moduleSpecifier.text;
    const from = statement.getSourceFile().fileName;
    const clause = statement.importClause;
    if (clause.name?.text === name) return { kind: 'import', module, name: 'default', from };
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings) && bindings.name.text === name) return { kind: 'import', module, name: '*', from };
    if (bindings && ts.isNamedImports(bindings)) {
      const element = bindings.elements.find((e) => e.name.text === name);
      if (element) return { kind: 'import', module, name: (element.propertyName ?? element.name).text, from };
    }
  }
  return undefined;
}

function findAssignment(source: ts.SourceFile, name: string): ts.Expression | undefined {
  let found: ts.Expression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (
      ts.isBinaryExpression(node) &&
      node.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
      ts.isIdentifier(node.left) &&
      node.left.text === name
    ) {
      found = node.right;
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function isFunctionLike(node: ts.Node): node is FunctionLike {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node);
}

function isConst(declaration: ts.VariableDeclaration): boolean {
  return ts.isVariableDeclarationList(declaration.parent) && (declaration.parent.flags & ts.NodeFlags.Const) !== 0;
}

function unwrap(expression: ts.Expression): ts.Expression {
  let e = expression;
  while (ts.isParenthesizedExpression(e) || ts.isAsExpression(e) || ts.isNonNullExpression(e) || ts.isSatisfiesExpression(e) || ts.isAwaitExpression(e) || ts.isTypeAssertionExpression(e)) {
    e = e.expression;
  }
  return e;
}

function product(left: Values, right: Values): Values {
  const values: string[] = [];
  for (const l of left) for (const r of right) values.push(collapse(l + r));
  return unique(values).slice(0, MAX_VALUES);
}

function collapse(value: string): string {
  return value.replace(new RegExp(`${WILDCARD}+`, 'g'), WILDCARD);
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
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
