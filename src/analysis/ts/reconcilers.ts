/**
 * TypeScript reconciler modules (ARCHITECTURE §3 "Reconciler modules"): finds every function
 * named `reconcile` taking (ctx, req), the same-file functions it calls, which expressions are the
 * client (`ctx.client`, or a variable taken from it), and which variables hold the reconciled
 * object (read with `client.get(type, req)`). Syntax only: no type checker, so it stays fast.
 */
import * as ts from 'typescript';

export interface TsPathFunc {
  node: ts.FunctionLikeDeclaration;
  body: ts.Block;
  isRoot: boolean;
  /** identifiers that name the client, and the context parameter (for `ctx.client`) */
  clientNames: Set<string>;
  ctxName: string | null;
  reconciled: Set<string>;
}

export interface TsReconciler {
  root: TsPathFunc;
  funcs: TsPathFunc[];
}

export function parseTs(path: string, text: string): ts.SourceFile {
  return ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function paramName(p: ts.ParameterDeclaration | undefined): string | null {
  return p && ts.isIdentifier(p.name) ? p.name.text : null;
}

function nameOf(node: ts.Node): string | null {
  if (
    (ts.isMethodDeclaration(node) || ts.isFunctionDeclaration(node)) &&
    node.name &&
    ts.isIdentifier(node.name)
  ) {
    return node.name.text;
  }
  if ((ts.isFunctionExpression(node) || ts.isArrowFunction(node)) && node.parent) {
    const p = node.parent;
    if (ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
    if (ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  }
  return null;
}

export function forEachDescendant(node: ts.Node, visit: (n: ts.Node) => void): void {
  const walk = (n: ts.Node): void => {
    visit(n);
    ts.forEachChild(n, walk);
  };
  ts.forEachChild(node, walk);
}

/** Is `expr` the client: `ctx.client`, a client variable, or `this.client`? */
export function isClient(fn: TsPathFunc, expr: ts.Expression): boolean {
  const e = skipParens(expr);
  if (ts.isIdentifier(e)) return fn.clientNames.has(e.text);
  if (ts.isPropertyAccessExpression(e) && e.name.text === 'client') {
    const base = skipParens(e.expression);
    return (
      (ts.isIdentifier(base) && base.text === fn.ctxName) || base.kind === ts.SyntaxKind.ThisKeyword
    );
  }
  return false;
}

export function skipParens(e: ts.Expression): ts.Expression {
  let x = e;
  while (ts.isParenthesizedExpression(x) || ts.isNonNullExpression(x) || ts.isAsExpression(x))
    x = x.expression;
  return x;
}

export interface TsClientCall {
  call: ts.CallExpression;
  method: string;
  status: boolean;
}

/** `client.get(...)`, `client.status().update(...)`, ... */
export function clientCall(fn: TsPathFunc, call: ts.CallExpression): TsClientCall | null {
  const callee = skipParens(call.expression);
  if (!ts.isPropertyAccessExpression(callee)) return null;
  const method = callee.name.text;
  const target = skipParens(callee.expression);
  if (ts.isCallExpression(target)) {
    const inner = skipParens(target.expression);
    if (
      ts.isPropertyAccessExpression(inner) &&
      inner.name.text === 'status' &&
      isClient(fn, inner.expression)
    ) {
      return { call, method, status: true };
    }
    return null;
  }
  return isClient(fn, target) ? { call, method, status: false } : null;
}

export function clientCalls(fn: TsPathFunc): TsClientCall[] {
  const out: TsClientCall[] = [];
  forEachDescendant(fn.body, (n) => {
    if (ts.isCallExpression(n)) {
      const c = clientCall(fn, n);
      if (c) out.push(c);
    }
  });
  return out;
}

function makeFunc(
  node: ts.FunctionLikeDeclaration,
  isRoot: boolean,
  clientNames: Set<string>,
  ctxName: string | null,
): TsPathFunc | null {
  if (!node.body || !ts.isBlock(node.body)) return null;
  const fn: TsPathFunc = {
    node,
    body: node.body,
    isRoot,
    clientNames: new Set(clientNames),
    ctxName,
    reconciled: new Set(),
  };
  // `const { client } = ctx` or `const client = ctx.client`
  forEachDescendant(node.body, (n) => {
    if (!ts.isVariableDeclaration(n) || !n.initializer) return;
    const init = skipParens(n.initializer);
    if (ts.isObjectBindingPattern(n.name) && ts.isIdentifier(init) && init.text === ctxName) {
      for (const el of n.name.elements) {
        const prop =
          el.propertyName && ts.isIdentifier(el.propertyName)
            ? el.propertyName.text
            : ts.isIdentifier(el.name)
              ? el.name.text
              : '';
        if (prop === 'client' && ts.isIdentifier(el.name)) fn.clientNames.add(el.name.text);
      }
    } else if (ts.isIdentifier(n.name) && isClient(fn, init)) {
      fn.clientNames.add(n.name.text);
    }
  });
  return fn;
}

function isReconcileFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  if (!(
    ts.isMethodDeclaration(node) ||
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node)
  )) {
    return false;
  }
  return nameOf(node) === 'reconcile' && node.parameters.length >= 1;
}

export function findTsReconcilers(sf: ts.SourceFile): TsReconciler[] {
  const functions = new Map<string, ts.FunctionLikeDeclaration>();
  const roots: ts.FunctionLikeDeclaration[] = [];
  forEachDescendant(sf, (n) => {
    if (isReconcileFunction(n)) roots.push(n);
    else if (
      (ts.isFunctionDeclaration(n) || ts.isArrowFunction(n) || ts.isFunctionExpression(n)) &&
      nameOf(n)
    ) {
      functions.set(nameOf(n)!, n as ts.FunctionLikeDeclaration);
    }
  });
  return roots.flatMap((node) => {
    const ctxName = paramName(node.parameters[0]);
    const reqName = paramName(node.parameters[1]);
    const root = makeFunc(node, true, new Set(), ctxName);
    if (!root) return [];
    for (const cc of clientCalls(root)) {
      if (cc.status || cc.method !== 'get' || !reqName) continue;
      const key = cc.call.arguments[1];
      if (
        !key ||
        !ts.isIdentifier(skipParens(key)) ||
        (skipParens(key) as ts.Identifier).text !== reqName
      )
        continue;
      const target = assignedVariable(cc.call);
      if (target) root.reconciled.add(target);
    }
    const funcs = [root];
    const seen = new Set<ts.Node>([node]);
    for (let i = 0; i < funcs.length && funcs.length < 100; i++) {
      const fn = funcs[i];
      forEachDescendant(fn.body, (n) => {
        if (!ts.isCallExpression(n) || !ts.isIdentifier(n.expression)) return;
        const target = functions.get(n.expression.text);
        if (!target || seen.has(target)) return;
        seen.add(target);
        // The callee gets a client if one is passed: map argument positions to parameter names.
        const names = new Set<string>();
        const reconciled = new Set<string>();
        n.arguments.forEach((arg, j) => {
          const p = paramName(target.parameters[j]);
          if (!p) return;
          if (isClient(fn, arg)) names.add(p);
          const a = skipParens(arg);
          if (ts.isIdentifier(a) && fn.reconciled.has(a.text)) reconciled.add(p);
        });
        const made = makeFunc(target, false, names, null);
        if (made) {
          for (const r of reconciled) made.reconciled.add(r);
          funcs.push(made);
        }
      });
    }
    return [{ root, funcs }];
  });
}

/** `x = await client.get(...)` / `const x = (await client.get(...)) as T` → 'x'. */
function assignedVariable(call: ts.CallExpression): string | null {
  let n: ts.Node = call;
  while (
    n.parent &&
    (ts.isAwaitExpression(n.parent) ||
      ts.isParenthesizedExpression(n.parent) ||
      ts.isAsExpression(n.parent) ||
      ts.isNonNullExpression(n.parent))
  ) {
    n = n.parent;
  }
  const p = n.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (
    p &&
    ts.isBinaryExpression(p) &&
    p.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    ts.isIdentifier(p.left)
  ) {
    return p.left.text;
  }
  return null;
}
