/**
 * notfound-not-ignored: Reconcile reads its own object with the request's key and returns the
 * error as is. After a delete the object is gone, Get returns NotFound, and the request fails and
 * is retried with backoff for nothing. Ignore NotFound (client.IgnoreNotFound or IsNotFound).
 */
import { fix, packageName, replaceNode } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { CLIENT_PKG, paramsOf, resultsOf, type GoPackage } from '../package';
import {
  isOwnKey,
  isRequestKey,
  resolveCall,
  type PathFunc,
  type Reconciler,
} from '../reconcilers';
import {
  argVar,
  callArgs,
  descendants,
  field,
  named,
  statements,
  unparen,
  type Node,
} from '../syntax';

/** The `if` that handles the Get's error: its own `if err := ...;` or the next `if err != nil`. */
function errorIf(call: Node): { ifs: Node[]; err: string } | null {
  const list = call.parent;
  const stmt = list?.parent;
  if (list?.type !== 'expression_list' || !stmt) return null;
  if (stmt.type !== 'short_var_declaration' && stmt.type !== 'assignment_statement') return null;
  // `err := r.Get(...)`, or `app, err := r.getApp(...)`: the error comes last.
  const errVar = named(field(stmt, 'left')).pop();
  if (errVar?.type !== 'identifier' || errVar.text === '_') return null;
  const err = errVar.text;
  if (stmt.parent?.type === 'if_statement') return { ifs: [stmt.parent], err };
  if (stmt.parent?.type !== 'statement_list') return null;
  // `err := r.Get(...)` followed by ifs about err; stop at the first statement that is not one.
  const ifs: Node[] = [];
  const siblings = statements(stmt.parent.parent);
  const i = siblings.findIndex((s) => s.id === stmt.id);
  for (const s of siblings.slice(i + 1)) {
    if (s.type !== 'if_statement' || !(field(s, 'condition')?.text ?? '').includes(err)) break;
    ifs.push(s);
  }
  return ifs.length ? { ifs, err } : null;
}

export const notfoundNotIgnored: GoRule = {
  id: 'notfound-not-ignored',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      const fn = rec.root;
      // Only the first read of the object: a later re-fetch after a write may fail once and the
      // next reconcile's first Get then ignores NotFound.
      const direct = fn.clientCalls.find(
        (cc) => !cc.status && cc.method === 'Get' && fn.reconciled.has(argVar(cc.args[2]) ?? ''),
      );
      // A Get after an earlier read with the request's key that handles NotFound is a re-fetch
      // too (kamaji's `r.getTenantControlPlane(ctx, req.NamespacedName)()` then a Get in a
      // RetryOnConflict closure).
      const first = direct && !readBefore(fn, direct.call, rec.request) ? direct : undefined;
      // Or the helper that reads it, when it does not deal with NotFound itself: one returning
      // the object, else one returning only the Get's error.
      const reads = first
        ? [{ call: first.call, v: argVar(first.args[2])!, what: 'this Get returns' }]
        : rec.helperFetches.length
          ? rec.helperFetches
              .slice(0, 1)
              .filter((h) => !/NotFound/.test(h.helper.node.text))
              .map((h) => ({ call: h.call, v: h.name, what: `${h.helper.name} returns` }))
          : direct
            ? []
            : errorOnlyRead(ctx.pkg, rec);
      for (const { call, v, what } of reads) {
        const handled = errorIf(call);
        if (!handled) continue;
        if (handled.ifs.some((s) => s.text.includes('NotFound'))) continue;
        const ret = firstReturnOf(handled.ifs, handled.err);
        if (!ret) continue;
        ctx.report({
          file: fn.file,
          node: ret,
          message: `The NotFound of a deleted ${v} is returned as an error. When ${v} has been deleted ${what} NotFound, and returning it fails the reconcile and retries with backoff for nothing; return client.IgnoreNotFound(${handled.err}).`,
          fixes: () => fixesFor(fn, ret),
        });
      }
    }
  },
};

/**
 * `if err := r.inject(ctx, req); err != nil { return ..., err }`: the first call of Reconcile
 * handed the request (or its key) that goes to a path function of the package which reads the
 * object with it and hands that Get's error back unchanged (`if err := r.Get(ctx,
 * req.NamespacedName, &crd); err != nil { return err }`), never mentioning NotFound. The helper
 * returns only an error, so nothing else tells its caller the object is gone.
 */
function errorOnlyRead(pkg: GoPackage, rec: Reconciler): { call: Node; v: string; what: string }[] {
  const root = rec.root;
  for (const call of root.calls) {
    const args = callArgs(call);
    const at = args.findIndex((a) => a.text === rec.request || isRequestKey(root, a, rec.request));
    if (at < 0 || !rec.request) continue;
    const target = resolveCall(pkg, root, call);
    const helper = target && rec.funcs.find((f) => f.decl === target);
    if (!helper) continue;
    const results = resultsOf(helper.node);
    if (results[results.length - 1] !== 'error' || /NotFound/.test(helper.body.text)) continue;
    const param = paramsOf(helper.node)[at]?.name;
    const handedRequest = args[at].text === rec.request;
    const get = helper.clientCalls.find(
      (cc) =>
        !cc.status &&
        cc.method === 'Get' &&
        !!param &&
        (handedRequest ? isRequestKey(helper, cc.args[1], param) : isOwnKey(cc.args[1], param)),
    );
    const v = get && argVar(get.args[2]);
    const handled = get && errorIf(get.call);
    if (!v || !handled || !firstReturnOf(handled.ifs, handled.err)) continue;
    // The first read of the object is this one: earlier calls handed the request are not reads.
    return readBefore(root, call, rec.request) ? [] : [{ call, v, what: `${target.name} returns` }];
  }
  return [];
}

/**
 * Does a call before `call` read with the request's key and deal with NotFound? The call may be
 * called in turn (`r.getter(ctx, req.NamespacedName)()`): its outermost call holds the error.
 */
function readBefore(fn: PathFunc, call: Node, request: string): boolean {
  for (const c of fn.calls) {
    if (c.endIndex > call.startIndex) continue;
    if (!callArgs(c).some((a) => isRequestKey(fn, a, request))) continue;
    let outer = c;
    while (
      outer.parent?.type === 'call_expression' &&
      field(outer.parent, 'function')?.id === outer.id
    )
      outer = outer.parent;
    const handled = errorIf(outer);
    if (handled?.ifs.some((s) => s.text.includes('NotFound'))) return true;
  }
  return false;
}

/** The error expression of a return inside the ifs that hands back `err` itself. */
function firstReturnOf(ifs: Node[], err: string): Node | null {
  for (const s of ifs) {
    const cond = field(s, 'condition')?.text.replace(/\s+/g, ' ');
    if (cond !== `${err} != nil`) continue;
    for (const ret of descendants(field(s, 'consequence'), 'return_statement')) {
      const exprs = named(named(ret)[0]);
      const last = unparen(exprs[exprs.length - 1] ?? null);
      if (last && last.type === 'identifier' && last.text === err) return last;
    }
  }
  return null;
}

function fixesFor(fn: PathFunc, errExpr: Node): Fix[] {
  const client = packageName(fn.file, CLIENT_PKG, 'client');
  if (!client) return [];
  return [
    fix(
      `Wrap with ${client.name}.IgnoreNotFound`,
      replaceNode(fn.file, errExpr, `${client.name}.IgnoreNotFound(${errExpr.text})`),
      ...client.edits,
    ),
  ];
}
