/**
 * status-error-ignored: `_ = r.Status().Update(ctx, &obj)`, a bare status write, `err = ...`
 * whose err is overwritten or never read, or a failure that is checked and only logged. A failed
 * status write left unreturned means the next reconcile decides from a stale status and nothing
 * retries the write.
 *
 * Not when every path after the write returns a non-nil error: `_ = r.Status().Update(ctx, obj);
 * return ctrl.Result{}, err` inside `if err != nil` requeues the request, and the next pass writes
 * the status again. The error may come from a helper of the
 * module known to return one (`return ..., r.logAndWrap(err, "...")`). A deferred write is
 * judged by the returns after its `defer`, which decide the pass before it runs.
 *
 * Nor when Reconcile ends every pass with a deferred patch of the reconciled object (flux's and
 * cluster-api's patch helpers): a progress write dropped on the way is written again by it.
 */
import { checkedCall, fix, insertAfter, replaceNode, replaceStatement } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import type { ErrorOf } from '../errors';
import {
  returnErrorStatement,
  type CallEdge,
  type PathFunc,
  type Reconciler,
} from '../reconcilers';
import {
  discarded,
  pardoned,
  retried,
  returnsAfter,
  type Follow,
  type Verdict,
  type Within,
} from '../errorfate';
import { callName, siteName } from '../summary';
import {
  ancestor,
  argVar,
  callArgs,
  callee,
  descendants,
  enclosingStatement,
  field,
  mentions,
  inGoroutine,
  scheduled,
  statements,
  type Node,
} from '../syntax';

/** First sentence for the Problems panel (≤ 100 characters), the rest for the hover. */
function message(what: string, v: Verdict): string {
  switch (v.kind) {
    case 'swallowed':
      if (v.partial)
        return `The error of ${what} is checked only for some failures and the rest are dropped. They skip the check and the function returns nil, so nothing retries the write and the next reconcile reads a stale status. Return ${v.err}.`;
      return `The error of ${what} is checked and then dropped. The failure branch ends by returning nil, so nothing retries the write and the next reconcile reads a stale status. Return ${v.err}.`;
    case 'logged':
      return `The error of ${what} is logged and dropped. ${LOGGED_WHERE[v.within]}, so nothing retries the write and the next reconcile reads a stale status. ${LOGGED_FIX[v.within]}.`;
    case 'deferred':
      return `The error of the deferred ${what} is dropped. ${LOGGED_WHERE.defer}, so nothing retries the write and the next reconcile reads a stale status. ${LOGGED_FIX.defer}.`;
    default:
      return `The error of ${what} is dropped. If the write fails nothing retries it and the next reconcile reads a stale status. Check it and return it.`;
  }
}

/**
 * Does Reconcile end every pass with a deferred patch of the reconciled object (flux's
 * `defer func() { ... SummarizeAndPatch(ctx, obj, ...) }()`, cluster-api's `defer
 * patchHelper.Patch(ctx, obj)`, a deferred `r.Status().Update(ctx, obj)`)? Then a status write
 * made on the way (a progress marker) whose failure is dropped loses nothing: the deferred patch
 * writes the status again, and what becomes of its error is judged on its own.
 */
function patchedAtEnd(rec: Reconciler): boolean {
  return descendants(rec.root.body, 'defer_statement').some(
    (d) => /patch|status/i.test(d.text) && [...rec.root.reconciled].some((v) => mentions(d, v)),
  );
}

/**
 * The path functions Reconcile calls in its own defer (`defer UpdateStatus(ctx, r.Client, cr)`),
 * and what they call: their writes are Reconcile's deferred write itself, which nothing writes
 * again after it.
 */
function deferredHelpers(rec: Reconciler): Set<PathFunc> {
  const out = new Set<PathFunc>();
  let grew = true;
  while (grew) {
    grew = false;
    for (const e of rec.edges) {
      if (out.has(e.callee)) continue;
      const fromDefer = e.caller.isRoot && inDefer(e.call, e.caller.body);
      if (fromDefer || out.has(e.caller)) {
        out.add(e.callee);
        grew = true;
      }
    }
  }
  return out;
}

/**
 * A deferred write runs once the function's return has decided the reconcile's outcome: its
 * failure costs nothing when every return after the `defer` hands back a non-nil error or, for a
 * failure that is logged, a Result that requeues (the next pass writes the status again, as for
 * the same write made without `defer`). The `defer` is the write's own (`defer func() { ... }()`,
 * `defer r.Status().Update(...)`), or, for a helper that only deferred calls reach, each of
 * those calls' `defer`.
 */
function pardonedAtDefer(
  edgesInto: Map<PathFunc, CallEdge[]>,
  fn: PathFunc,
  call: Node,
  v: Verdict,
  errorOf: (fn: PathFunc) => ErrorOf,
  follow: Follow,
): boolean {
  if (v.kind === 'swallowed') return false;
  const requeue = v.kind === 'logged';
  const own = ancestor(call, ['defer_statement'], fn.body);
  const into = own ? [] : (edgesInto.get(fn) ?? []);
  if (!own && (fn.isRoot || into.length === 0)) return false;
  const sites = own
    ? [{ fn, stmt: own }]
    : into.map((e) => ({
        fn: e.caller,
        stmt: ancestor(e.call, ['defer_statement'], e.caller.body),
      }));
  return sites.every(({ fn: g, stmt }) => {
    const returns = stmt && returnsAfter(g, stmt);
    return !!returns && retried(g, returns, errorOf(g), requeue, follow);
  });
}

/** The variable a helper's status write writes: its argument (or receiver) at `param`. */
function writtenArg(call: Node, param: number | null): string | null {
  if (param === null) return null;
  if (param >= 0) return argVar(callArgs(call)[param]);
  const op = callee(call)?.operand;
  return op?.type === 'identifier' ? op.text : null;
}

export const statusErrorIgnored: GoRule = {
  id: 'status-error-ignored',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      const rewritten = patchedAtEnd(rec);
      const deferred = deferredHelpers(rec);
      const errorOfFn = (f: PathFunc): ErrorOf => ctx.summaries.errorOf(f);
      // `return r.reconcile(ctx, obj)`: the returns of the path function called are the caller's.
      // The reconciler's call edges by call and by callee, asked of for every write judged.
      const byCall = new Map<number, CallEdge>();
      const into = new Map<PathFunc, CallEdge[]>();
      for (const e of rec.edges) {
        if (!byCall.has(e.call.id)) byCall.set(e.call.id, e);
        into.set(e.callee, [...(into.get(e.callee) ?? []), e]);
      }
      const follow: Follow = (g, call) => {
        const e = byCall.get(call.id);
        return e && e.caller === g ? { fn: e.callee, errorOf: errorOfFn(e.callee) } : null;
      };
      const excused = (fn: PathFunc, call: Node, v: Verdict, errorOf: ErrorOf): boolean =>
        pardoned(fn, call, v, errorOf, follow) ||
        pardonedAtDefer(into, fn, call, v, errorOfFn, follow);
      // Written again by Reconcile's deferred patch: a write of the reconciled object made on
      // the way (in a helper's own defer too, which runs before Reconcile's), not Reconcile's
      // deferred write itself nor one in a goroutine, which may run after it.
      const lost = (fn: PathFunc, call: Node, v: Verdict, obj: string | null): boolean => {
        if (!rewritten || !obj || !fn.reconciled.has(obj) || deferred.has(fn)) return true;
        if (v.kind === 'logged' && v.within === 'goroutine') return true;
        return fn.isRoot && (v.kind === 'deferred' || inDefer(call, fn.body));
      };
      for (const fn of rec.funcs) {
        const own = new Set<number>();
        const errorOf = ctx.summaries.errorOf(fn);
        for (const cc of fn.clientCalls) {
          if (!cc.status) continue;
          own.add(cc.call.id);
          // A cron job or timer callback runs outside any reconcile: not this rule's business.
          if (scheduled(cc.call, fn.body)) continue;
          const verdict = discarded(fn, cc.call);
          // The cheap test first: a write the deferred patch makes again needs no pardon.
          if (!verdict || !lost(fn, cc.call, verdict, argVar(cc.args[1]))) continue;
          if (excused(fn, cc.call, verdict, errorOf)) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            // `sp.Patch` of a patch helper library says its own name.
            message: message(
              /Status\(\)/.test(callName(cc.call)) ? `Status().${cc.method}` : callName(cc.call),
              verdict,
            ),
            fixes: () => fixesFor(fn, verdict, cc.call),
          });
        }
        for (const call of fn.calls) {
          if (own.has(call.id) || scheduled(call, fn.body)) continue;
          const hit = ctx.summaries.ofCall(fn, call);
          if (!hit) continue;
          const { summary: s, ref } = hit;
          // A status helper whose error this function drops: as if the write were made here.
          if (s.returnsStatusError) {
            const verdict = discarded(fn, call);
            const obj = writtenArg(call, s.writeParam);
            if (verdict && lost(fn, call, verdict, obj) && !excused(fn, call, verdict, errorOf)) {
              ctx.report({
                file: fn.file,
                node: call,
                message: message(`${callName(call)} (a status write)`, verdict),
                fixes: () => fixesFor(fn, verdict, call),
              });
              continue;
            }
          }
          // A helper of another package that drops the error itself (a helper of this package
          // is on the path: the drop is reported where it is).
          if (!s.drop || ref.path === ctx.summaries.homePath || inGoroutine(call, fn.body))
            continue;
          // A write in the helper's goroutine runs after this pass: no return of it or
          // deferred patch of Reconcile's makes it again.
          const stmt = s.drop.goroutine ? null : enclosingStatement(call);
          if (stmt && !lost(fn, call, { kind: 'dropped', stmt }, writtenArg(call, s.writeParam)))
            continue;
          if (stmt && pardoned(fn, call, { kind: 'dropped', stmt }, errorOf)) continue;
          const helper = callName(call);
          ctx.report({
            file: fn.file,
            node: call,
            message: `${helper} drops the error of its status write. It is ${s.drop.how} at ${siteName(fn.file.path, s.drop.site)}: if the write fails nothing retries it and the next reconcile reads a stale status. Return the error from ${helper} and check it here.`,
          });
        }
      }
    }
  },
};

/** Is the call inside a `defer` of the function (the deferred patch itself)? */
function inDefer(call: Node, body: Node): boolean {
  return !!ancestor(call, ['defer_statement'], body);
}

const LOGGED_WHERE: Record<Within, string> = {
  flow: 'The reconcile goes on to return success',
  defer: 'The deferred write runs when Reconcile returns success too',
  goroutine: 'It runs in a goroutine that reports to no one',
};
const LOGGED_FIX: Record<Within, string> = {
  flow: 'Return the error',
  defer: 'Return the error (assign it to a named error result)',
  goroutine: 'Write the status in Reconcile, or requeue and write it on the next pass',
};

function fixesFor(fn: PathFunc, v: Verdict, call: Node): Fix[] {
  if (v.kind === 'swallowed') {
    return [fix(`Return ${v.err} when the status write fails`, replaceNode(fn.file, v.nil, v.err))];
  }
  if (v.kind === 'logged') {
    const ret = v.within !== 'flow' ? null : returnErrorStatement(fn, v.err);
    const branch = statements(field(v.check, 'consequence'));
    const last = branch[branch.length - 1];
    if (!ret || !last) return [];
    return [fix(`Return ${v.err} when the status write fails`, insertAfter(fn.file, last, [ret]))];
  }
  const ret = returnErrorStatement(fn, 'err');
  if (!ret) return [];
  if (v.kind === 'deferred') return [];
  if (v.kind === 'dropped') {
    return [
      fix(
        'Check the status write error and return it',
        replaceStatement(fn.file, v.stmt, checkedCall(call.text, ret)),
      ),
    ];
  }
  const retNamed = returnErrorStatement(fn, v.err)!;
  return [
    fix(
      `Return ${v.err} when the status write fails`,
      insertAfter(fn.file, v.stmt, [`if ${v.err} != nil {`, `\t${retNamed}`, '}']),
    ),
  ];
}
