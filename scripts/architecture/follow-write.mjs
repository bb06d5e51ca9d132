#!/usr/bin/env node
/**
 * Follows what one operation runs, from its declaration, the way a reader would: the handler (and
 * the operation's normalise and precondition steps), then every function, method or constant of
 * `src/` that it calls or reads, resolved by TypeScript (go-to-definition), and what those call in
 * turn. Types are not followed (reading a type is not following a call), nor the pipeline that
 * every operation shares (docs/architecture.md's request path), nor libraries and generated code.
 *
 * Prints the files in reading order (a file before the files it calls), their lines, and every
 * place where the trip goes back: a file calling into a file that called it (a circle of files, so
 * no reading order reads each once). The count is given without the foundation layer (errors,
 * tracing, pure validation...: leaves named by what they do, scripts/architecture/layers.cjs) and
 * with it. A call of a member of a value handed in (an interface's) is followed to its
 * implementation when that is in a file already read (an appended table's SQL, say); otherwise it
 * cannot be resolved statically and is listed as such.
 *
 *   node scripts/architecture/follow-write.mjs createRentalInsuranceComment patchRentalInsurance
 *   node scripts/architecture/follow-write.mjs --check 10 createRentalInsuranceComment --check 15 patchRentalInsurance
 *
 * With --check N before an operation id, exits 1 when that operation reaches more than N files
 * besides the foundation layer, or goes back to a file.
 */
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ts from 'typescript';

const { LAYERS } = createRequire(import.meta.url)('./layers.cjs');

const root = path.resolve(new URL('../..', import.meta.url).pathname);
const configFile = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, root);
const program = ts.createProgram(
  parsed.fileNames.filter((file) => file.includes('/src/')),
  parsed.options,
);
const checker = program.getTypeChecker();

/** The foundation layer's units (scripts/architecture/layers.cjs): leaves every layer uses, named by what they do. */
const FOUNDATION = LAYERS.find((layer) => layer.name === 'foundation').units.map((unit) => path.join(root, 'src', unit));
const isFoundation = (file) => FOUNDATION.some((unit) => (unit.endsWith('/') ? file.startsWith(unit) : file === unit));
const isOurs = (file) => file.startsWith(path.join(root, 'src/')) && !file.includes('/src/generated/') && !file.endsWith('.d.ts');
const relative = (file) => path.relative(root, file);

/** The object literal given to defineOperation('<operationId>', ...) (or the call that makes it). */
function declarationOf(operationId) {
  for (const source of program.getSourceFiles()) {
    if (!isOurs(source.fileName)) continue;
    let found;
    const visit = (node) => {
      if (found) return;
      if (
        ts.isCallExpression(node) &&
        ts.isIdentifier(node.expression) &&
        node.expression.text === 'defineOperation' &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0]) &&
        node.arguments[0].text === operationId
      ) {
        found = node.arguments[1];
        return;
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    if (found) return found;
  }
  throw new Error(`No defineOperation('${operationId}') in src/`);
}

/** The parts of a declaration that run for the operation: its handler, normalise and precondition. */
function entryNodes(definition) {
  if (ts.isObjectLiteralExpression(definition)) {
    const parts = definition.properties.filter(
      (property) => property.name && ['handler', 'normalise', 'precondition'].includes(property.name.getText()),
    );
    return parts.map((property) => (ts.isPropertyAssignment(property) ? property.initializer : property));
  }
  // decision('accept'): a function that returns the definition.
  return [definition];
}

const isTypePosition = (node) => {
  for (let up = node.parent; up; up = up.parent) {
    if (
      ts.isTypeNode(up) ||
      ts.isImportDeclaration(up) ||
      ts.isExportDeclaration(up) ||
      ts.isInterfaceDeclaration(up) ||
      ts.isTypeAliasDeclaration(up)
    ) {
      return true;
    }
    if (ts.isExpression(up) || ts.isStatement(up)) return false;
  }
  return false;
};

/** The declarations a reader opens from `node`: called functions and methods, constructors, constants read. */
function targetsOf(node) {
  const targets = [];
  const add = (declaration) => {
    if (declaration && isOurs(declaration.getSourceFile().fileName)) targets.push(declaration);
  };
  const visit = (child) => {
    if (ts.isCallExpression(child) || ts.isNewExpression(child)) {
      const signature = checker.getResolvedSignature(child);
      const declaration = signature?.getDeclaration();
      if (declaration && !ts.isJSDocSignature(declaration)) {
        if (declaration.body || ts.isArrowFunction(declaration)) add(declaration);
        else if (isOurs(declaration.getSourceFile().fileName) && declaredByAType(declaration)) {
          const member = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(child.expression) ? child.expression.name : child.expression);
          handedIn.push({
            member,
            call: `${relative(child.getSourceFile().fileName)}: ${child.expression.getText()}`,
            from: child.getSourceFile().fileName,
          });
        }
      }
    } else if (ts.isIdentifier(child) && !isTypePosition(child)) {
      let symbol = checker.getSymbolAtLocation(child);
      if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
      for (const declaration of symbol?.declarations ?? []) {
        // A constant or function named as a value (passed on, or read): its definition is read too.
        const topLevel =
          declaration.parent && (ts.isSourceFile(declaration.parent) || ts.isSourceFile(declaration.parent.parent?.parent ?? declaration));
        if (ts.isFunctionDeclaration(declaration) && topLevel) add(declaration);
        if (
          ts.isVariableDeclaration(declaration) &&
          declaration.initializer &&
          ts.isVariableStatement(declaration.parent.parent) &&
          ts.isSourceFile(declaration.parent.parent.parent)
        ) {
          add(declaration);
        }
        if (ts.isClassDeclaration(declaration) && ts.isNewExpression(child.parent)) add(declaration.members.find(ts.isConstructorDeclaration));
      }
    }
    ts.forEachChild(child, visit);
  };
  visit(node);
  return targets;
}

const unresolved = new Set();

/** A member of a type a value is declared with (handed in), not of an inline type in a cast (`x as { toFixed(): string }`). */
const declaredByAType = (declaration) => {
  for (let up = declaration.parent; up && !ts.isSourceFile(up); up = up.parent)
    if (ts.isAsExpression(up) || ts.isTypeAssertionExpression(up)) return false;
  return true;
};
/** Calls of an interface's member (a value handed in): followed to an implementation in a file already read. */
let handedIn = [];

/** The functions that implement interface members in `file`'s object literals: member symbol -> function nodes. */
const implementationsIn = new Map();
function implementationsOf(file) {
  if (implementationsIn.has(file)) return implementationsIn.get(file);
  const found = [];
  const visit = (node) => {
    if (ts.isObjectLiteralExpression(node)) {
      const contextual = checker.getContextualType(node);
      for (const property of node.properties) {
        if (!ts.isPropertyAssignment(property) && !ts.isMethodDeclaration(property)) continue;
        const member = contextual?.getProperty(property.name.getText());
        if (!member) continue;
        let target = ts.isPropertyAssignment(property) ? property.initializer : property;
        if (ts.isIdentifier(target)) {
          let symbol = checker.getSymbolAtLocation(target);
          if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
          target = symbol?.declarations?.[0];
        }
        if (target) found.push({ member, target });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(program.getSourceFile(file));
  implementationsIn.set(file, found);
  return found;
}
const nameOf = (node) => (node.name ? node.name.getText() : node.parent?.name ? node.parent.name.getText() : node.getText().slice(0, 30));

function follow(operationId) {
  unresolved.clear();
  const start = declarationOf(operationId);
  const seen = new Set();
  const firstSeen = new Map();
  const edges = new Map();
  const queue = entryNodes(start).map((node) => ({ node, from: undefined }));
  const startFile = start.getSourceFile().fileName;
  firstSeen.set(startFile, 0);
  const sameMember = (a, b) => a && b && (a === b || (a.declarations?.[0] !== undefined && a.declarations[0] === b.declarations?.[0]));
  for (;;) {
    if (queue.length === 0) {
      // Calls of a member of a value handed in, followed to an implementation in a file already read.
      const pending = handedIn;
      handedIn = [];
      for (const { member, call, from } of pending) {
        const implementations = [...firstSeen.keys()].flatMap((file) => implementationsOf(file).filter((found) => sameMember(found.member, member)));
        if (implementations.length === 0) unresolved.add(call);
        for (const { target } of implementations) queue.push({ node: target, from });
      }
      if (queue.length === 0) break;
    }
    const { node, from } = queue.shift();
    const file = node.getSourceFile().fileName;
    if (from && from !== file) {
      if (!edges.has(from)) edges.set(from, new Set());
      edges.get(from).add(file);
    }
    if (seen.has(node)) continue;
    seen.add(node);
    if (!firstSeen.has(file)) {
      firstSeen.set(file, firstSeen.size);
      if (process.env.WHY) console.log(`    ${relative(file)} by ${nameOf(node)} from ${from ? relative(from) : '-'}`);
    }
    for (const target of targetsOf(node)) queue.push({ node: target, from: file });
  }
  const files = [...firstSeen.keys()];
  const circles = circlesOf(files, edges);
  return { files: readingOrder(files, edges, firstSeen), circles, unresolved: [...unresolved] };
}

/** Groups of files that call into each other (strongly connected components of more than one file). */
function circlesOf(files, edges) {
  let index = 0;
  const indices = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const circles = [];
  const connect = (file) => {
    indices.set(file, index);
    low.set(file, index++);
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!indices.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file), low.get(next)));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file), indices.get(next)));
    }
    if (low.get(file) === indices.get(file)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) circles.push(component.map(relative));
    }
  };
  for (const file of files) if (!indices.has(file)) connect(file);
  return circles;
}

/** Callers before the files they call (first met first among equals); a circle keeps the order met. */
function readingOrder(files, edges, firstSeen) {
  const callers = new Map(files.map((file) => [file, 0]));
  for (const [from, targets] of edges) for (const target of targets) if (from !== target) callers.set(target, callers.get(target) + 1);
  const order = [];
  const done = new Set();
  while (order.length < files.length) {
    const ready = files.filter((file) => !done.has(file) && callers.get(file) === 0);
    const next = (ready.length > 0 ? ready : files.filter((file) => !done.has(file))).sort((a, b) => firstSeen.get(a) - firstSeen.get(b))[0];
    done.add(next);
    order.push(next);
    for (const target of edges.get(next) ?? []) if (!done.has(target)) callers.set(target, callers.get(target) - 1);
  }
  return order;
}

const lines = (file) => readFileSync(file, 'utf8').split('\n').length - 1;

let failed = false;
let limit;
for (const argument of process.argv.slice(2)) {
  if (argument === '--check') {
    limit = -1;
    continue;
  }
  if (limit === -1) {
    limit = Number(argument);
    continue;
  }
  const { files, circles, unresolved: handedOver } = follow(argument);
  const total = files.reduce((sum, file) => sum + lines(file), 0);
  const own = files.filter((file) => !isFoundation(file));
  const ownLines = own.reduce((sum, file) => sum + lines(file), 0);
  console.log(
    `${argument}: ${own.length} files, ${ownLines} lines without the foundation layer (${files.length} files, ${total} lines with it)` +
      (circles.length ? `; goes back: ${circles.map((circle) => circle.join(' <-> ')).join('; ')}` : '; never goes back to a file'),
  );
  files.forEach((file, position) =>
    console.log(`  ${String(position + 1).padStart(2)}. ${relative(file)} (${lines(file)})${isFoundation(file) ? '  [foundation]' : ''}`),
  );
  for (const call of handedOver) console.log(`     called through a value handed in (not followed): ${call}`);
  if (limit !== undefined && (own.length > limit || circles.length > 0)) {
    console.error(`${argument}: more than ${limit} files besides the foundation, or a file read twice`);
    failed = true;
  }
  limit = undefined;
}
process.exit(failed ? 1 : 0);
