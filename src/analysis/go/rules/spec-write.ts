/**
 * spec-write: Reconcile assigns to `<obj>.Spec...` of the object it reconciles and that change
 * then reaches the API server: a later Update of the object, or a Patch whose base was copied
 * before the assignment, along some control-flow path of the function or of its callers (the
 * helpers it is reached through). Spec is the user's desired state; each write is a new
 * generation and a new event, so a controller that keeps "fixing" its own spec reconciles forever
 * and fights `kubectl apply`. Keep derived values in status.
 *
 * Order matters: an assignment after the last write (an in-memory "effective" default) and one
 * made before the patch base is copied never reach the server, and are not reported.
 */
import type { GoRule } from '../rule';
import { reaches } from '../flow';
import { patchBase, sendsEarlierChanges } from '../patchbase';
import { paramsOf } from '../package';
import type { CallEdge, PathFunc, Reconciler } from '../reconcilers';
import { callName, receiverArg, siteName, type FuncSummary, type Summaries } from '../summary';
import {
  argVar,
  callArgs,
  callee,
  contains,
  descendants,
  field,
  named,
  unparen,
  type Node,
} from '../syntax';

/**
 * The calls of `fn` into other packages of the module whose summary maps a parameter to
 * something (`pick`: the spec fields it changes, the write that sends it back), each with the
 * variable handed at that parameter: the receiver (`obj.SetDefaults()`, or `obj.Spec.FillFrom()`
 * on its spec) or an argument. This package's helpers are path functions, followed apart.
 */
function* moduleArgs<T>(
  summaries: Summaries,
  fn: PathFunc,
  pick: (s: FuncSummary) => Map<number, T>,
): Generator<{ call: Node; v: string | null; value: T }> {
  let hits = moduleHits.get(fn);
  if (!hits) {
    hits = [];
    for (const call of fn.calls) {
      const hit = summaries.ofCall(fn, call);
      if (hit && hit.ref.path !== summaries.homePath) hits.push({ call, summary: hit.summary });
    }
    moduleHits.set(fn, hits);
  }
  for (const { call, summary } of hits)
    for (const [i, value] of pick(summary))
      yield { call, v: i === -1 ? receiverArg(call) : argVar(callArgs(call)[i]), value };
}

/** A path function's calls into other packages of the module, with their summaries (asked twice). */
const moduleHits = new WeakMap<PathFunc, { call: Node; summary: FuncSummary }[]>();

/** A point where an object's in-memory state is sent to the API server. */
interface Write {
  node: Node;
  /** what writes: `Update`, `Patch`, or the helper called */
  what: string;
  /**
   * For a Patch against a copy made in this function: where the copy is made. Changes made
   * before it are in the base and so not in the patch.
   */
  base: Node | null;
}

/** Binds a call's arguments to the callee's parameters: caller variable → callee parameter. */
function bindings(edge: CallEdge): Map<string, { param: string; pointer: boolean }> {
  const params = paramsOf(edge.callee.node);
  const out = new Map<string, { param: string; pointer: boolean }>();
  callArgs(edge.call).forEach((arg, i) => {
    const v = argVar(arg);
    const p = params[i];
    if (!v || !p) return;
    // `&x` passes x itself; a pointer variable passed on shares the object too.
    const addr = unparen(arg)?.type === 'unary_expression';
    out.set(v, { param: p.name, pointer: addr || p.type.type === 'pointer_type' });
  });
  return out;
}

/** Is `name` a parameter of the function literal (the helper hands the object back in)? */
function closureParamFor(closure: Node, name: string): boolean {
  return paramsOf(closure).some((p) => p.name === name);
}

class SpecFlow {
  private readonly out = new Map<number, CallEdge[]>();
  private readonly into = new Map<number, CallEdge[]>();
  private readonly priorWrites = new Map<string, string | null>();

  constructor(
    rec: Reconciler,
    private readonly summaries: Summaries,
  ) {
    for (const e of rec.edges) {
      const o = this.out.get(e.caller.node.id) ?? [];
      o.push(e);
      this.out.set(e.caller.node.id, o);
      const i = this.into.get(e.callee.node.id) ?? [];
      i.push(e);
      this.into.set(e.callee.node.id, i);
    }
  }

  private readonly writesCache = new Map<string, Write[]>();

  /** The writes of `name` in `fn`: its own client calls and calls of helpers that write it. */
  writes(fn: PathFunc, name: string): Write[] {
    const key = `${fn.node.id}:${name}`;
    const cached = this.writesCache.get(key);
    if (cached) return cached;
    const out: Write[] = [];
    this.writesCache.set(key, out);
    for (const cc of fn.clientCalls) {
      if (cc.status || (cc.method !== 'Update' && cc.method !== 'Patch')) continue;
      if (argVar(cc.args[1]) !== name) continue;
      const base = cc.method === 'Patch' ? patchBase(fn.body, cc.call, cc.args[2]) : 'none';
      out.push({ node: cc.call, what: cc.method, base: base === 'none' ? null : base });
    }
    for (const e of this.out.get(fn.node.id) ?? []) {
      const b = bindings(e).get(name);
      if (!b?.pointer) continue;
      const what = this.writesPrior(e.callee, b.param, new Set());
      if (what) out.push({ node: e.call, what: `${e.callee.decl.name} (${what})`, base: null });
    }
    out.push(...this.moduleWrites(fn, name));
    return out;
  }

  /**
   * Calls in `fn` of helpers in other packages of the module that write `name` and so send what
   * was changed in it before (`util.AddFinalizer(ctx, obj, f, c)` that ends in `c.Update(ctx,
   * obj)`). This package's helpers are path functions, followed through the call edges.
   */
  private moduleWrites(fn: PathFunc, name: string): Write[] {
    // Every variable of `fn` asks: its module calls are looked at once, then filtered by name.
    let all = this.moduleWritesOf.get(fn);
    if (!all) {
      all = [];
      for (const { call, v, value } of moduleArgs(this.summaries, fn, (s) => s.writesBack))
        if (v)
          all.push({ v, write: { node: call, what: `${callName(call)} (${value})`, base: null } });
      this.moduleWritesOf.set(fn, all);
    }
    const out: Write[] = [];
    for (const { v, write } of all)
      if (v === name && out[out.length - 1]?.node !== write.node) out.push(write);
    return out;
  }

  private readonly moduleWritesOf = new Map<PathFunc, { v: string; write: Write }[]>();

  /**
   * Does calling `fn` send to the server changes made to `param` before the call? An Update
   * does; a Patch against a copy the helper makes itself does not. Returns the write's method.
   */
  private writesPrior(fn: PathFunc, param: string, seen: Set<string>): string | null {
    const key = `${fn.node.id}:${param}`;
    if (this.priorWrites.has(key)) return this.priorWrites.get(key)!;
    if (seen.has(key)) return null;
    seen.add(key);
    let found: string | null = null;
    for (const cc of fn.clientCalls) {
      if (argVar(cc.args[1]) !== param || !sendsEarlierChanges(fn.body, cc)) continue;
      found = cc.method;
      break;
    }
    found ??= this.moduleWrites(fn, param)[0]?.what ?? null;
    for (const e of found ? [] : (this.out.get(fn.node.id) ?? [])) {
      const b = bindings(e).get(param);
      if (b?.pointer) found = this.writesPrior(e.callee, b.param, seen);
      if (found) break;
    }
    this.priorWrites.set(key, found);
    return found;
  }

  /**
   * Does `name` at `at` in `fn` hold the reconciled object? A variable bound to it, or the
   * parameter of a function literal handed to a helper of the path that calls it with the object
   * (`r.patch(ctx, obj, func(o *T) { o.SetDefaults() })`, where patch runs `mutate(obj)`), whatever
   * the parameter is named.
   */
  holdsObject(fn: PathFunc, name: string, at: Node): boolean {
    if (fn.reconciled.has(name)) return true;
    for (const e of this.out.get(fn.node.id) ?? []) {
      const args = callArgs(e.call);
      const k = args.findIndex((a) => a.type === 'func_literal' && contains(a, at));
      const j = k < 0 ? -1 : paramsOf(args[k]).findIndex((p) => p.name === name);
      const callback = j < 0 ? undefined : paramsOf(e.callee.node)[k]?.name;
      if (!callback) continue;
      const handsObject = (c: Node): boolean => {
        const target = callee(c);
        return (
          !!target &&
          !target.operand &&
          target.name === callback &&
          e.callee.reconciled.has(argVar(callArgs(c)[j]) ?? '')
        );
      };
      if (e.callee.calls.some(handsObject)) return true;
    }
    return false;
  }

  /**
   * `r.patch(ctx, obj, func(o *T) { o.Spec.X = ... })`: a change made in a closure handed to a
   * helper that writes the object is made by the helper when it calls the closure, after its
   * patch base is copied (that is what such helpers are for): the helper's write sends it.
   */
  private writtenByCallbackHelper(fn: PathFunc, name: string, at: Node): Write | null {
    for (const e of this.out.get(fn.node.id) ?? []) {
      const closure = callArgs(e.call).find((a) => a.type === 'func_literal' && contains(a, at));
      if (!closure) continue;
      for (const [v, b] of bindings(e)) {
        if (v !== name && !closureParamFor(closure, name)) continue;
        const what = this.writesAtAll(e.callee, b.param);
        if (what) return { node: e.call, what: `${e.callee.decl.name} (${what})`, base: null };
      }
    }
    return null;
  }

  /** Does `fn` write `param` at all (an Update, or any Patch, of it)? */
  private writesAtAll(fn: PathFunc, param: string): string | null {
    const cc = fn.clientCalls.find(
      (c) =>
        !c.status && (c.method === 'Update' || c.method === 'Patch') && argVar(c.args[1]) === param,
    );
    return cc?.method ?? null;
  }

  /**
   * The first write that sends a change made to `name` at `at` in `fn` to the server: in `fn`
   * after it, or — when `name` is a pointer parameter — in a caller after the call.
   */
  writtenAfter(fn: PathFunc, name: string, at: Node, seen = new Set<string>()): Write | null {
    const key = `${fn.node.id}:${name}:${at.id}`;
    if (seen.has(key)) return null;
    seen.add(key);
    const byHelper = this.writtenByCallbackHelper(fn, name, at);
    if (byHelper) return byHelper;
    for (const w of this.writes(fn, name)) {
      if (!reaches(fn.body, at, w.node)) continue;
      // A patch against a copy made after the change does not carry it.
      if (w.base && w.base.startIndex > at.startIndex) continue;
      return w;
    }
    const param = paramsOf(fn.node).find((p) => p.name === name);
    if (!param || param.type.type !== 'pointer_type') return null;
    for (const e of this.into.get(fn.node.id) ?? []) {
      for (const [v, b] of bindings(e)) {
        if (b.param !== name) continue;
        const w = this.writtenAfter(e.caller, v, e.call, seen);
        if (w) return w;
      }
    }
    return null;
  }
}

const WHY =
  "Spec is the user's desired state and each write triggers another reconcile (an endless loop if it differs each time); keep derived values in status.";

/**
 * Is the value assigned the reconciler's own configuration (`obj.Spec.Image = r.DefaultImage`,
 * `… .Replicas = &r.DesiredReplicas`)? Then the operator is set up to own that field: whoever
 * deploys it chose the value, and overwriting the user's is the point (an image the operator pins,
 * a replica count it enforces in a bundle). A value computed from the object, a literal default or
 * a helper's result is still reported.
 */
function fromConfig(fn: PathFunc, a: Node, i: number): boolean {
  const values = named(field(a, 'right'));
  const targets = named(field(a, 'left'));
  if (!fn.receiver || values.length !== targets.length) return false;
  let v = unparen(values[i] ?? null);
  if (v?.type === 'unary_expression' && v.text.startsWith('&')) v = unparen(field(v, 'operand'));
  return (
    v?.type === 'selector_expression' &&
    unparen(field(v, 'operand'))?.text === fn.receiver &&
    field(v, 'field')?.type === 'field_identifier'
  );
}

export const specWrite: GoRule = {
  id: 'spec-write',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      // Cheap first: a change can only reach the server through some write of the object.
      const writesBack = rec.funcs.some(
        (fn) =>
          fn.clientCalls.some(
            (cc) =>
              !cc.status &&
              (cc.method === 'Update' || cc.method === 'Patch') &&
              fn.reconciled.has(argVar(cc.args[1]) ?? ''),
          ) ||
          // or a helper of another package of the module handed the object writes it
          (fn.reconciled.size > 0 &&
            fn.calls.some((c) => (ctx.summaries.ofCall(fn, c)?.summary.writesBack.size ?? 0) > 0)),
      );
      if (!writesBack) continue;
      const flow = new SpecFlow(rec, ctx.summaries);
      for (const fn of rec.funcs) {
        if (fn.reconciled.size === 0) continue;
        for (const a of descendants(fn.body, [
          'assignment_statement',
          'inc_statement',
          'dec_statement',
        ])) {
          const targets: Node[] =
            a.type === 'assignment_statement' ? named(field(a, 'left')) : named(a).slice(0, 1);
          const hit = targets.find((t) => {
            const m = /^(\w+)\.Spec\b/.exec(t.text);
            return !!m && flow.holdsObject(fn, m[1], t);
          });
          if (!hit) continue;
          if (a.type === 'assignment_statement' && fromConfig(fn, a, targets.indexOf(hit)))
            continue;
          const v = hit.text.split('.')[0];
          const w = flow.writtenAfter(fn, v, a);
          if (!w) continue;
          ctx.report({
            file: fn.file,
            node: a,
            message: `Reconcile changes ${hit.text} and the ${w.what} that follows writes it back. ${WHY}`,
          });
        }
        // Calls into the module that change a spec: `obj.SetDefaults()` on the API type,
        // `defaults.Apply(obj)` (this package's helpers are on the path and seen above).
        const reported = new Set<Node>();
        for (const { call, v, value: change } of moduleArgs(ctx.summaries, fn, (s) => s.spec)) {
          if (reported.has(call) || !v || !flow.holdsObject(fn, v, call)) continue;
          const w = flow.writtenAfter(fn, v, call);
          if (!w) continue;
          reported.add(call);
          const field = change.target.replace(/^\w+/, v);
          ctx.report({
            file: fn.file,
            node: call,
            message: `${callName(call)} changes ${field} and the ${w.what} that follows writes it back. It does so at ${siteName(fn.file.path, change.site)}. ${WHY}`,
          });
        }
      }
    }
  },
};
