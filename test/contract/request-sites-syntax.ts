/** Syntax-tree lookups of the request finder: where a name is declared, what a function returns, what an expression wraps. */
import ts from 'typescript';

export type FunctionLike = ts.FunctionDeclaration | ts.FunctionExpression | ts.ArrowFunction | ts.MethodDeclaration;

export interface LocalName {
  kind: 'local';
  node: ts.Node;
}
export interface ImportedName {
  kind: 'import';
  module: string;
  name: string;
  from: string;
}
export type Declaration = LocalName | ImportedName;

export function declaredIn(statement: ts.Statement, name: string): Declaration | undefined {
  if (ts.isVariableStatement(statement)) {
    for (const declaration of statement.declarationList.declarations) {
      if (ts.isIdentifier(declaration.name) && declaration.name.text === name) return { kind: 'local', node: declaration };
      // `const { ops } = useStaff(world)`: the element, whose value is a property of the initializer.
      if (ts.isObjectBindingPattern(declaration.name)) {
        const element = declaration.name.elements.find((e) => ts.isIdentifier(e.name) && e.name.text === name);
        if (element) return { kind: 'local', node: element };
      }
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

/** The expressions a function body returns, not counting those of functions defined inside it. */
export function returnedExpressions(body: ts.Block): ts.Expression[] {
  const found: ts.Expression[] = [];
  const visit = (node: ts.Node): void => {
    if (node !== body && isFunctionLike(node)) return;
    if (ts.isReturnStatement(node) && node.expression) found.push(node.expression);
    ts.forEachChild(node, visit);
  };
  visit(body);
  return found;
}

export function findAssignment(source: ts.SourceFile, name: string): ts.Expression | undefined {
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

export function isFunctionLike(node: ts.Node): node is FunctionLike {
  return ts.isFunctionDeclaration(node) || ts.isFunctionExpression(node) || ts.isArrowFunction(node) || ts.isMethodDeclaration(node);
}

export function isConst(declaration: ts.VariableDeclaration): boolean {
  return ts.isVariableDeclarationList(declaration.parent) && (declaration.parent.flags & ts.NodeFlags.Const) !== 0;
}

export function unwrap(expression: ts.Expression): ts.Expression {
  let e = expression;
  while (
    ts.isParenthesizedExpression(e) ||
    ts.isAsExpression(e) ||
    ts.isNonNullExpression(e) ||
    ts.isSatisfiesExpression(e) ||
    ts.isAwaitExpression(e) ||
    ts.isTypeAssertionExpression(e)
  ) {
    e = e.expression;
  }
  return e;
}
