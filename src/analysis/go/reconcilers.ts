/**
 * Finds each Reconcile method and the functions its path reaches, and decides which variables are
 * clients and which hold the reconciled object. Rules work only on these "path functions", so a
 * sleep in a CLI helper or a List in a webhook is never reported as a reconcile problem.
 */
import type { GoFile, GoPackage, FuncDecl, StructInfo } from './package';
import { isLocal } from './locals';
import { varType } from './vartypes';
import { CLIENT_PKG, importPathOf, paramsOf, receiverOf, resultsOf } from './package';
import {
  argVar,
  callArgs,
  callee,
  descendants,
  field,
  keyLiteralName,
  named,
  typeName,
  unparen,
  type Node,
} from './syntax';

/** Methods of controller-runtime's client.Client that talk to the API server (or its cache). */
const CLIENT_METHODS = new Set([
  'Get',
  'List',
  'Create',
  'Update',
  'Patch',
  'Delete',
  'DeleteAllOf',
  'Apply',
]);
const STATUS_METHODS = new Set(['Update', 'Patch', 'Create', 'Apply']);
/** Parameter or field types that are a controller-runtime client. */
const CLIENT_TYPE = /^(\w+)\.(Client|Writer|Reader|StatusClient|WithWatch|SubResourceClient)$/;

/**
 * Is `type` controller-runtime's client (`client.Client`, or under another import name:
 * `runtimeclient.StatusClient`)? The qualifier must name the client package in one of `files`.
 */
function isClientType(type: string, files: GoFile[]): boolean {
  const m = CLIENT_TYPE.exec(type);
  if (!m) return false;
  if (m[1] === 'client') return true;
  return files.some((f) => importPathOf(f, m[1]) === CLIENT_PKG);
}
/**
 * A reconciler's path is followed through at most this many functions, so a pathological package
 * stays cheap. Real operator packages reach a few hundred (argocd-operator's controller package
 * has about 500 functions); when the bound is hit, the Reconciler says where (`stoppedAt`) and the
 * analysis logs it rather than dropping findings without a word.
 */
export const MAX_PATH_FUNCS = 5000;

export interface PathFunc {
  decl: FuncDecl;
  file: GoFile;
  node: Node;
  body: Node;
  isRoot: boolean;
  receiver: string | null;
  clientIdents: Set<string>;
  clientFields: Set<string>;
  /** variables that hold the reconciled object in this function */
  reconciled: Set<string>;
  /** parameters of a function type → the package's functions callers handed in (`r.replicaTarget`) */
  funcArgs: Map<string, FuncDecl[]>;
  /** result types' source text, e.g. ['ctrl.Result', 'error'] */
  results: string[];
  /** every call in the body, computed once */
  calls: Node[];
  clientCalls: ClientCall[];
}

export interface ClientCall {
  call: Node;
  method: string;
  /** `X.Status().Update(...)` and friends */
  status: boolean;
  args: Node[];
}

/** One call from a path function to another: where it is, and who calls whom. */
export interface CallEdge {
  caller: PathFunc;
  call: Node;
  callee: PathFunc;
}

export interface HelperFetch {
  name: string;
  type: string | null;
  call: Node;
  helper: FuncDecl;
}

export interface Reconciler {
  root: PathFunc;
  funcs: PathFunc[];
  /** every resolved same-package call between path functions */
  edges: CallEdge[];
  /** `app, err := r.getApp(ctx, req.NamespacedName)`: the reconciled object read by a helper */
  helperFetches: HelperFetch[];
  /** the call that was not followed because the path reached MAX_PATH_FUNCS, if any */
  stoppedAt: { fn: PathFunc; call: Node; target: string } | null;
  /** bare type name of the reconciled object, when declared in Reconcile */
  objectType: string | null;
  /** the Request parameter's name */
  request: string;
}

export function isResultType(text: string | undefined): boolean {
  return !!text && /^(\w+\.)?Result$/.test(text);
}

/** Does this function return (Result, error)? */
export function returnsResultAndError(fn: PathFunc): boolean {
  return fn.results.length === 2 && isResultType(fn.results[0]) && fn.results[1] === 'error';
}

/** The return statement that hands `err` back, or null when the signature is not one we know. */
export function returnErrorStatement(fn: PathFunc, err: string): string | null {
  if (returnsResultAndError(fn)) return `return ${fn.results[0]}{}, ${err}`;
  if (fn.results.length === 1 && fn.results[0] === 'error') return `return ${err}`;
  return null;
}

/**
 * `Reconcile(ctx, req Request) (Result, error)`, or the one-parameter form controller-runtime had
 * before v0.7, which reconcilers wrapped by a newer one still keep (`return r.inner.Reconcile(req)`).
 * Also controller-runtime's `reconcile.ObjectReconciler[T]` form, `Reconcile(ctx, obj *T) (Result,
 * error)`, handed the object already read (by `reconcile.AsReconciler` or an operator's own
 * wrapper): it has no request (''), and its parameter is the reconciled object (typedObject).
 */
function isReconcileMethod(node: Node): { request: string } | null {
  if (node.type !== 'method_declaration' || field(node, 'name')?.text !== 'Reconcile') return null;
  const params = paramsOf(node);
  const last = params[params.length - 1];
  if (params.length < 1 || params.length > 2) return null;
  const results = resultsOf(node);
  if (results.length !== 2 || !isResultType(results[0]) || results[1] !== 'error') return null;
  if (typeName(last.type) === 'Request') return { request: last.name };
  return typedObject(node) ? { request: '' } : null;
}

/** The object parameter of `Reconcile(ctx context.Context, obj *T)`, T a named type. */
function typedObject(node: Node): { name: string; type: string } | null {
  const params = paramsOf(node);
  if (params.length !== 2 || !/\bContext$/.test(params[0].type.text)) return null;
  const p = params[1];
  const type = typeName(p.type);
  if (p.type.type !== 'pointer_type' || !type || !p.name || p.name === '_') return null;
  return { name: p.name, type };
}

export function findReconcilers(pkg: GoPackage): Reconciler[] {
  const out: Reconciler[] = [];
  for (const { decl, request } of reconcileRoots(pkg)) {
    const built = buildReconciler(pkg, decl, request);
    if (built) out.push(built);
  }
  return out;
}

/** Every Reconcile method of the package, with its Request parameter's name. */
export function reconcileRoots(pkg: GoPackage): { decl: FuncDecl; request: string }[] {
  const out: { decl: FuncDecl; request: string }[] = [];
  for (const decl of pkg.methods.values()) {
    const rec = isReconcileMethod(decl.node);
    if (rec) out.push({ decl, request: rec.request });
  }
  return out;
}

export function makePathFunc(pkg: GoPackage, decl: FuncDecl, isRoot: boolean): PathFunc | null {
  const body = field(decl.node, 'body');
  if (!body) return null;
  const recv = decl.receiverType ? receiverOf(decl.node) : null;
  const clientIdents = new Set<string>();
  const clientFields = new Set<string>();
  if (recv?.name) {
    const struct = pkg.struct(recv.type);
    if (struct) {
      if (embedsClient(pkg, struct, clientFields)) clientIdents.add(recv.name);
    } else {
      // Struct declared outside what we were given: accept the conventional spellings only.
      clientIdents.add(recv.name);
      clientFields.add('Client');
    }
  }
  for (const p of paramsOf(decl.node))
    if (isClientType(p.type.text, [decl.file])) clientIdents.add(p.name);
  const fn: PathFunc = {
    decl,
    file: decl.file,
    node: decl.node,
    body,
    isRoot,
    receiver: recv?.name ?? null,
    clientIdents,
    clientFields,
    reconciled: new Set(),
    funcArgs: new Map(),
    results: resultsOf(decl.node),
    calls: descendants(body, 'call_expression'),
    clientCalls: [],
  };
  fn.clientCalls = fn.calls
    .map((c) => clientCall(fn, c))
    .filter((c): c is ClientCall => c !== null);
  return fn;
}

/**
 * Does the struct embed a client, itself or through a struct it embeds (`type addCore struct {
 * *CacheReconciler }`, whose reconciler embeds client.Client)? Its client fields, its own and
 * promoted ones, go into `fields`. An embedded struct of another package, which we do not read,
 * is taken to hold its client in a field named Client, as controller-runtime's examples do.
 */
function embedsClient(pkg: GoPackage, struct: StructInfo, fields: Set<string>, depth = 0): boolean {
  for (const [name, type] of struct.fields) if (isClientType(type, pkg.files)) fields.add(name);
  let embeds = false;
  for (const e of struct.embedded) {
    if (isClientType(e, pkg.files)) {
      // An embedded field is named by its type: `client.Client` is also `r.Client`.
      fields.add(/(\w+)$/.exec(e)?.[1] ?? '');
      embeds = true;
      continue;
    }
    const local = /^\*?(\w+)$/.exec(e)?.[1];
    const inner = local ? pkg.struct(local) : undefined;
    if (inner && depth < 3) embeds = embedsClient(pkg, inner, fields, depth + 1) || embeds;
    else if (!local && /^\*?\w+\.\w+$/.test(e)) fields.add('Client');
  }
  return embeds;
}

/** Is `node` an expression that designates a client in `fn`? */
export function isClientExpr(fn: PathFunc, node: Node | null): boolean {
  const n = unparen(node);
  if (!n) return false;
  if (n.type === 'identifier') return fn.clientIdents.has(n.text);
  if (n.type === 'selector_expression') {
    const op = unparen(field(n, 'operand'));
    return (
      !!op &&
      op.type === 'identifier' &&
      op.text === fn.receiver &&
      fn.clientFields.has(field(n, 'field')?.text ?? '')
    );
  }
  return false;
}

export function clientCall(fn: PathFunc, call: Node): ClientCall | null {
  const c = callee(call);
  if (!c || !c.operand) return null;
  if (c.operand.type === 'call_expression') {
    const inner = callee(c.operand);
    if (
      inner?.name === 'Status' &&
      callArgs(c.operand).length === 0 &&
      isClientExpr(fn, inner.operand) &&
      STATUS_METHODS.has(c.name)
    ) {
      return { call, method: c.name, status: true, args: callArgs(call) };
    }
    return null;
  }
  if (c.name === 'Patch' && c.operand.type === 'identifier' && isPatcher(fn, c.operand.text))
    return { call, method: c.name, status: true, args: callArgs(call) };
  if (!CLIENT_METHODS.has(c.name) || !isClientExpr(fn, c.operand)) return null;
  return { call, method: c.name, status: false, args: callArgs(call) };
}

/** Patch helper libraries whose `Patch(ctx, obj, ...)` writes the object and its status. */
const PATCHER_PKG =
  /^(github\.com\/fluxcd\/pkg\/runtime\/patch|sigs\.k8s\.io\/cluster-api\/util\/patch)$/;

/**
 * Is `name` a patch helper of flux (`patch.SerialPatcher`, `patch.Helper`) or cluster-api
 * (`patch.Helper`)? Declared with that type, or made by its constructor
 * (`sp := patch.NewSerialPatcher(obj, r.Client)`, `h, err := patch.NewHelper(obj, r.Client)`).
 */
function isPatcher(fn: PathFunc, name: string): boolean {
  const fromPkg = (qual: string | undefined): boolean =>
    !!qual && PATCHER_PKG.test(importPathOf(fn.file, qual) ?? '');
  let t = varType(fn.node, name);
  while (t && (t.type === 'pointer_type' || t.type === 'parenthesized_type'))
    t = named(t)[0] ?? null;
  if (t?.type === 'qualified_type')
    return (
      fromPkg(field(t, 'package')?.text) &&
      /^(SerialPatcher|Helper)$/.test(field(t, 'name')?.text ?? '')
    );
  for (const d of descendants(fn.body, ['short_var_declaration', 'assignment_statement'])) {
    if (named(field(d, 'left'))[0]?.text !== name) continue;
    const v = unparen(named(field(d, 'right'))[0] ?? null);
    const f = v?.type === 'call_expression' ? field(v, 'function') : null;
    if (f?.type !== 'selector_expression') continue;
    if (/^New(SerialPatcher|Helper)$/.test(field(f, 'field')?.text ?? ''))
      return fromPkg(field(f, 'operand')?.text);
  }
  return false;
}

/** Is `key` the request's key: `req.NamespacedName`, or a key literal built from `req.Name`? */
export function isRequestKey(
  fn: PathFunc,
  key: Node | undefined,
  request: string,
  depth = 0,
): boolean {
  const k = unparen(key ?? null);
  if (!k || !request) return false;
  if (k.text === `${request}.NamespacedName`) return true;
  if (k.type === 'composite_literal') return keyLiteralName(k)?.text === `${request}.Name`;
  if (k.type === 'identifier' && depth === 0) {
    // `key := req.NamespacedName` (or a literal of it) earlier in the function.
    for (const decl of descendants(fn.body, [
      'short_var_declaration',
      'assignment_statement',
      'var_spec',
    ])) {
      const left = field(decl, decl.type === 'var_spec' ? 'name' : 'left');
      const right = field(decl, decl.type === 'var_spec' ? 'value' : 'right');
      if (!left || !right || left.text !== k.text) continue;
      if (isRequestKey(fn, named(right)[0] ?? right, request, depth + 1)) return true;
    }
  }
  return false;
}

/** The bare type name a local variable is declared with (`var x T`, `x := &T{}`, `x := new(T)`). */
export function localVarType(fn: PathFunc, name: string): string | null {
  for (const spec of descendants(fn.body, 'var_spec')) {
    if (named(spec).some((n) => n.type === 'identifier' && n.text === name)) {
      const t = typeName(field(spec, 'type'));
      if (t) return t;
    }
  }
  for (const decl of descendants(fn.body, 'short_var_declaration')) {
    const left = named(field(decl, 'left'));
    const i = left.findIndex((n) => n.text === name);
    if (i < 0) continue;
    let value = unparen(named(field(decl, 'right'))[i] ?? null);
    if (value?.type === 'unary_expression') value = unparen(field(value, 'operand'));
    if (value?.type === 'composite_literal') return typeName(field(value, 'type'));
    if (value?.type === 'call_expression' && callee(value)?.name === 'new') {
      return typeName(named(field(value, 'arguments'))[0] ?? null);
    }
  }
  for (const p of paramsOf(fn.node)) if (p.name === name) return typeName(p.type);
  return null;
}

export function buildReconciler(
  pkg: GoPackage,
  decl: FuncDecl,
  request: string,
  limit = MAX_PATH_FUNCS,
): Reconciler | null {
  const root = makePathFunc(pkg, decl, true);
  if (!root) return null;
  let objectType: string | null = null;
  const typed = typedObject(decl.node);
  if (typed) {
    root.reconciled.add(typed.name);
    objectType = typed.type;
  }
  for (const cc of root.clientCalls) {
    if (cc.method !== 'Get' || cc.status || !isRequestKey(root, cc.args[1], request)) continue;
    const v = argVar(cc.args[2]);
    if (!v) continue;
    root.reconciled.add(v);
    objectType ??= localVarType(root, v);
  }
  const helperFetches = fetchedByHelper(pkg, root, request);
  for (const got of helperFetches) {
    root.reconciled.add(got.name);
    objectType ??= got.type;
  }
  const funcs = [root];
  const edges: CallEdge[] = [];
  const seenCalls = new Set<number>();
  let stoppedAt: Reconciler['stoppedAt'] = null;
  const byNode = new Map<number, PathFunc>([[decl.node.id, root]]);
  const queue = [root];
  while (queue.length > 0) {
    const fn = queue.shift()!;
    for (const [call, target] of fn.calls.flatMap((c) => targetsOf(pkg, fn, c))) {
      let callee = byNode.get(target.node.id);
      let grew = false;
      if (!callee) {
        if (funcs.length >= limit) {
          stoppedAt ??= { fn, call, target: target.name };
          continue;
        }
        const made = makePathFunc(pkg, target, false);
        if (!made) continue;
        callee = made;
        byNode.set(target.node.id, callee);
        funcs.push(callee);
        grew = true;
      }
      // A caller is walked again when it learns a reconciled variable: record each call once.
      if (!seenCalls.has(call.id)) {
        seenCalls.add(call.id);
        edges.push({ caller: fn, call, callee });
      }
      // Bind the reconciled object through arguments: helper(ctx, &cr) makes its param reconciled.
      // Bind function values likewise: pick(ctx, r.primary) makes `primary(...)` in pick reach it.
      const params = paramsOf(target.node);
      callArgs(call).forEach((arg, i) => {
        const v = argVar(arg);
        const p = params[i];
        if (!p) return;
        if (v && fn.reconciled.has(v) && !callee!.reconciled.has(p.name)) {
          callee!.reconciled.add(p.name);
          grew = true;
        }
        const bound = callee!.funcArgs.get(p.name) ?? [];
        for (const d of funcValue(pkg, fn, arg))
          if (!bound.includes(d)) {
            bound.push(d);
            callee!.funcArgs.set(p.name, bound);
            grew = true;
          }
      });
      if (grew) queue.push(callee);
    }
  }
  return { root, funcs, edges, helperFetches, stoppedAt, objectType, request };
}

/**
 * `app, err := r.getApp(ctx, req.NamespacedName)`: a same-package helper handed the request's key
 * that reads with the client and returns a pointer first. What it returns is the reconciled object.
 */
function fetchedByHelper(pkg: GoPackage, root: PathFunc, request: string): HelperFetch[] {
  const out: HelperFetch[] = [];
  for (const def of descendants(root.body, ['short_var_declaration', 'assignment_statement'])) {
    const values = named(field(def, 'right'));
    const call = unparen(values[0] ?? null);
    if (values.length !== 1 || call?.type !== 'call_expression') continue;
    // Cheap questions first: a same-package helper that reads and returns (*T, error).
    const target = resolveCall(pkg, root, call);
    const body = target && field(target.node, 'body');
    if (!target || !body || !/\.Get\(/.test(body.text)) continue;
    const results = resultsOf(target.node);
    if (!results[0]?.startsWith('*') || results[results.length - 1] !== 'error') continue;
    const at = callArgs(call).findIndex((a) => isRequestKey(root, a, request));
    if (at < 0 || !readsWithKey(body, paramsOf(target.node)[at]?.name)) continue;
    const left = named(field(def, 'left'))[0];
    if (left?.type !== 'identifier' || left.text === '_') continue;
    out.push({
      name: left.text,
      type: /(\w+)$/.exec(results[0])?.[1] ?? null,
      call,
      helper: target,
    });
  }
  return out;
}

/** Where a call in a path function may go: its one target, or every implementation of an interface method. */
function targetsOf(pkg: GoPackage, fn: PathFunc, call: Node): [Node, FuncDecl][] {
  const target = resolveCall(pkg, fn, call);
  if (target) return [[call, target]];
  const c = callee(call);
  const handed = c && !c.operand ? fn.funcArgs.get(c.name) : undefined;
  if (handed) return handed.map((d) => [call, d]);
  const via = dispatched(pkg, fn, call);
  return (via.length ? via : tabled(pkg, fn.node, fn.file, call)).map((d) => [call, d]);
}

/**
 * The package functions an argument hands over as a value: a method value on the receiver
 * (`r.replicaTarget`), a function of the package (`defaultTarget`), or a function value the
 * caller was itself handed (`replica`, passed on).
 */
function funcValue(pkg: GoPackage, fn: PathFunc, arg: Node): FuncDecl[] {
  const a = unparen(arg);
  if (a?.type === 'identifier') {
    const handed = fn.funcArgs.get(a.text);
    if (handed) return handed;
    const f = pkg.functions.has(a.text) ? pkg.func(a.text) : undefined;
    return f ? [f] : [];
  }
  if (a?.type !== 'selector_expression' || !fn.decl.receiverType) return [];
  const owner = unparen(field(a, 'operand'));
  if (owner?.type !== 'identifier' || owner.text !== fn.receiver) return [];
  const m = pkg.method(fn.decl.receiverType, field(a, 'field')?.text ?? '');
  return m ? [m] : [];
}

/**
 * A call through a function value held in a table of the package (package.ts funcValues):
 * `step(ctx, obj)` where `step` ranges over a `[]stepFunc` (or is a parameter of that type), or
 * `u.upgradeStack(ctx, t)` / `p.Reconcile(ctx, obj)` where that field is set in a literal
 * (`{version: v, upgradeStack: upgrade0_1_0}`, `{Name: "Status", Reconcile: r.reconcileStatus}`).
 */
export function tabled(pkg: GoPackage, fnNode: Node, file: GoFile, call: Node): FuncDecl[] {
  const c = callee(call);
  if (!c) return [];
  if (!c.operand) {
    // Most plain calls are builtins or the package's own functions: no variable to look up.
    if (pkg.functions.has(c.name) || !pkg.hasTypedFuncTables()) return [];
    let t = varType(fnNode, c.name);
    while (t && (t.type === 'pointer_type' || t.type === 'parenthesized_type'))
      t = named(t)[0] ?? null;
    return t?.type === 'type_identifier' ? pkg.funcValues('type', t.text) : [];
  }
  const op = unparen(c.operand);
  // A package qualifier, or the receiver: `r.method(...)` on the receiver was resolved, or is a
  // method of another package's type. A variable of that name hides either.
  const recv = receiverOf(fnNode);
  if (
    op?.type === 'identifier' &&
    (importPathOf(file, op.text) || recv?.name === op.text) &&
    !isLocal(fnNode, op.text, call)
  )
    return [];
  return pkg.funcValues('key', c.name);
}

/**
 * `for _, step := range []subReconciler{&addCore{r}, ...} { step.reconcile(ctx, obj) }`: a call
 * through a variable of an interface type the package declares reaches each of the package's
 * implementations of that method, and each is on the reconcile path. So does a call through a
 * field of the receiver declared with such a type (`r.readiness.NotReady(ctx, pod)`): whatever
 * concrete value a constructor put there, it is one of those implementations.
 */
export function dispatched(pkg: GoPackage, fn: PathFunc, call: Node): FuncDecl[] {
  const c = callee(call);
  const op = unparen(c?.operand ?? null);
  if (!c || !op) return [];
  if (op.type === 'selector_expression') {
    const iface = receiverFieldType(pkg, fn, op);
    return iface ? pkg.implementations(iface, c.name) : [];
  }
  if (op.type !== 'identifier') return [];
  const x = op.text;
  if ((x === fn.receiver || importPathOf(fn.file, x)) && !isLocal(fn.node, x, call)) return [];
  let t = varType(fn.node, x);
  while (t && (t.type === 'pointer_type' || t.type === 'parenthesized_type'))
    t = named(t)[0] ?? null;
  return t?.type === 'type_identifier' ? pkg.implementations(t.text, c.name) : [];
}

/** `r.handler` with r the receiver: the bare type name the receiver's struct declares that field with. */
function receiverFieldType(pkg: GoPackage, fn: PathFunc, sel: Node): string | null {
  const owner = unparen(field(sel, 'operand'));
  if (owner?.type !== 'identifier' || owner.text !== fn.receiver || !fn.decl.receiverType)
    return null;
  const type = pkg.struct(fn.decl.receiverType)?.fields.get(field(sel, 'field')?.text ?? '');
  return type && /^\w+$/.test(type) ? type : null;
}

/**
 * Does the helper read with the key it was handed, as the object's own key (`Get(ctx, key, obj)`,
 * or a key literal naming `key.Name`)? One that reads the namespace named by `key.Namespace`, or
 * some object that key leads to, returns something else than the reconciled object.
 */
function readsWithKey(body: Node, key: string | undefined): boolean {
  if (!key) return false;
  return descendants(body, 'call_expression').some(
    (c) => callee(c)?.name === 'Get' && isOwnKey(callArgs(c)[1], key),
  );
}

/** Is `k` the key `key` itself, or a key literal naming the object `key.Name` names? */
export function isOwnKey(k: Node | undefined, key: string): boolean {
  const n = unparen(k ?? null);
  if (!n) return false;
  return (
    n.text === key || (n.type === 'composite_literal' && keyLiteralName(n)?.text === `${key}.Name`)
  );
}

/**
 * Same-package targets only: `r.helper(...)` on the receiver's type, `helper(...)`, or a method
 * of a type this package declares on a variable of that type (`dfi.patchStatus(...)` where
 * `dfi, err := r.getInstance(...)` returns `*instance`). Other packages of the module are
 * summarized instead (summary.ts).
 */
export function resolveCall(
  pkg: GoPackage,
  fn: PathFunc,
  call: Node,
  depth = 0,
): FuncDecl | undefined {
  const c = callee(call);
  if (!c) return undefined;
  if (!c.operand) return pkg.func(c.name);
  if (c.operand.type !== 'identifier') return undefined;
  const x = c.operand.text;
  // The receiver, and a package qualifier (`fmt.Errorf`: no variable to look up), unless a
  // variable of the function hides that name.
  const special = x === fn.receiver || !!importPathOf(fn.file, x);
  const hidden = special && isLocal(fn.node, x, call);
  if (!hidden && x === fn.receiver && fn.decl.receiverType)
    return pkg.method(fn.decl.receiverType, c.name);
  if (depth > 2 || (special && !hidden)) return undefined;
  const t = varType(fn.node, x, (inner) =>
    inner.id === call.id ? null : (resolveCall(pkg, fn, inner, depth + 1)?.node ?? null),
  );
  let n: Node | null = t;
  while (n && (n.type === 'pointer_type' || n.type === 'parenthesized_type'))
    n = named(n)[0] ?? null;
  return n?.type === 'type_identifier' ? pkg.method(n.text, c.name) : undefined;
}
