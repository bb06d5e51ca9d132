/**
 * The static evaluator under the request finder (request-sites.ts): the possible string values of
 * an expression, and the function a call calls, followed across the files under one directory.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import {
  declaredIn,
  findAssignment,
  isConst,
  isFunctionLike,
  returnedExpressions,
  unwrap,
  type Declaration,
  type FunctionLike,
  type ImportedName,
} from './request-sites-syntax';

/** Stands for any text that the evaluator cannot know. */
export const WILDCARD = '\u0000';
const MAX_VALUES = 16;
export const MAX_DEPTH = 6;

export type Values = string[];
/** What each parameter of the helpers being followed stands for. */
export type Bindings = Map<ts.Node, Values>;

export class StaticEvaluator {
  private readonly sources = new Map<string, ts.SourceFile>();

  /** @param scope only files under this directory are read (imports elsewhere are opaque). */
  constructor(private readonly scope: string) {}

  protected source(file: string): ts.SourceFile | undefined {
    if (!file.startsWith(this.scope) || !fs.existsSync(file)) return undefined;
    let source = this.sources.get(file);
    if (!source) {
      source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
      this.sources.set(file, source);
    }
    return source;
  }

  /** The function a call expression calls: a local or imported function, or a method of a helper's object. */
  protected calledFunction(callee: ts.Expression, bindings: Bindings): FunctionLike | undefined {
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
      const node = declaration.node;
      if (ts.isBindingElement(node) && ts.isVariableDeclaration(node.parent.parent) && node.parent.parent.initializer) {
        const whole = this.objectOf(node.parent.parent.initializer, depth + 1);
        const key = node.propertyName ?? node.name;
        return whole && ts.isIdentifier(key) ? this.propertyObject(whole, key.text, depth + 1) : undefined;
      }
      if (ts.isVariableDeclaration(declaration.node)) {
        if (declaration.node.initializer) return this.objectOf(declaration.node.initializer, depth + 1);
        // `let partner: ...;` assigned later (in beforeAll): use the assignment in the same file.
        const assigned = findAssignment(inner.getSourceFile(), inner.text);
        return assigned ? this.objectOf(assigned, depth + 1) : undefined;
      }
    }
    // `director.ops`: a property of a helper's object.
    if (ts.isPropertyAccessExpression(inner)) {
      const whole = this.objectOf(inner.expression, depth + 1);
      return whole ? this.propertyObject(whole, inner.name.text, depth + 1) : undefined;
    }
    return undefined;
  }

  /** The object literal that property `name` of `object` stands for. */
  private propertyObject(object: ts.ObjectLiteralExpression, name: string, depth: number): ts.ObjectLiteralExpression | undefined {
    for (const property of object.properties) {
      if (!property.name || !ts.isIdentifier(property.name) || property.name.text !== name) continue;
      if (ts.isPropertyAssignment(property)) return this.objectOf(property.initializer, depth);
      if (ts.isShorthandPropertyAssignment(property)) return this.objectOf(property.name, depth);
    }
    return undefined;
  }

  /** Possible string values of an expression (WILDCARD for unknown parts). */
  protected evaluate(expression: ts.Expression, bindings: Bindings, depth: number): Values {
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
      if (target?.body) {
        const inner: Bindings = new Map(bindings);
        target.parameters.forEach((parameter, index) => {
          const argument = e.arguments[index];
          inner.set(
            parameter,
            argument
              ? this.evaluate(argument, bindings, depth + 1)
              : parameter.initializer
                ? this.evaluate(parameter.initializer, bindings, depth + 1)
                : [WILDCARD],
          );
        });
        if (!ts.isBlock(target.body)) return this.evaluate(target.body, inner, depth + 1);
        // A helper with statements (`withQuery(path, query)`): any of its return values.
        const returned = returnedExpressions(target.body).flatMap((value) => this.evaluate(value, inner, depth + 1));
        return returned.length ? unique(returned).slice(0, MAX_VALUES) : [WILDCARD];
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
  protected declarationOf(identifier: ts.Identifier): Declaration | undefined {
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
