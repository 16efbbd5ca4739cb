/**
 * blocking-sleep: time.Sleep, `<-time.After(d)` or a wait.Poll* loop inside a reconcile path. The
 * worker is held for the whole wait (other objects queue behind it) and the wait is lost on a
 * restart; return Result{RequeueAfter: d} instead. Waits inside a goroutine are not reported.
 */
import { fix, replaceNode } from '../../fixes';
import type { Fix } from '../../diagnostics';
import { guardAtCall } from '../guards';
import type { GoRule } from '../rule';
import { returnsResultAndError, type PathFunc } from '../reconcilers';
import { callName, siteName, worthReporting } from '../summary';
import {
  formatDuration,
  blockingWait,
  boundAtCall,
  inLoops,
  shortRetry,
  type Wait,
} from '../waits';
import {
  ancestor,
  callArgs,
  descendants,
  field,
  inFuncLiteral,
  inGoroutine,
  type Node,
} from '../syntax';

/** `for up to 1m0s`, or for the whole wait when it is unbounded or unknown. */
function howLong(w: Wait): string {
  return w.ms === null ? 'for the whole wait' : `for up to ${formatDuration(w.ms)}`;
}

const ADVICE =
  'Other objects queue behind it and the wait is lost on restart; return a Result with RequeueAfter instead.';

export const blockingSleep: GoRule = {
  id: 'blocking-sleep',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const call of fn.calls) {
          if (inGoroutine(call, fn.body)) continue;
          const scope = { body: fn.body, files: ctx.pkg.files };
          const found = blockingWait(fn.file, call, scope);
          if (found) {
            if (!worthReporting(found)) continue;
            const wait = inLoops(found, call, fn.body, scope);
            if (shortRetry(wait)) continue;
            ctx.report({
              file: fn.file,
              node: wait.what === '<-time.After' ? call.parent! : call,
              message: `${wait.what} holds this reconcile worker ${howLong(wait)}. Bound: ${wait.why}. ${ADVICE}`,
              fixes: () => (wait.what === 'time.Sleep' ? fixesFor(fn, call) : []),
            });
            continue;
          }
          // A wait/poll/retry wrapper of another package of the module (this package's own
          // helpers are on the path: their waits are reported where they are).
          const hit = ctx.summaries.ofCall(fn, call);
          const block = hit?.summary.block;
          if (!hit || !block || hit.ref.path === ctx.summaries.homePath) continue;
          // Told not to wait (`EnsureDeleted(..., false)` where the wait is `if wait { ... }`).
          if (guardAtCall(block.guard, callArgs(call), []) === 'off') continue;
          // Until its context ends, made here with `context.WithTimeout(ctx, d)`, or until a
          // deadline the constant handed here away.
          const { wait } = boundAtCall(
            block.wait,
            block.openParam,
            callArgs(call),
            scope,
            fn.file,
            [],
          );
          ctx.report({
            file: fn.file,
            node: call,
            message: `${callName(call)} holds this reconcile worker ${howLong(wait)}. It calls ${wait.what} at ${siteName(fn.file.path, block.site)} (bound: ${wait.why}). ${ADVICE}`,
          });
        }
      }
    }
  },
};

function fixesFor(fn: PathFunc, call: Node): Fix[] {
  const stmt = call.parent;
  if (!fn.isRoot || !returnsResultAndError(fn) || stmt?.type !== 'expression_statement') return [];
  // Inside a loop or a closure, a return would mean something else: offer nothing.
  if (ancestor(stmt, ['for_statement', 'func_literal'], fn.body) || inFuncLiteral(stmt, fn.body))
    return [];
  const d = callArgs(call)[0]?.text;
  if (!d || descendants(field(fn.node, 'body'), 'return_statement').length === 0) return [];
  return [
    fix(
      'Return RequeueAfter instead of sleeping',
      replaceNode(fn.file, stmt, `return ${fn.results[0]}{RequeueAfter: ${d}}, nil`),
    ),
  ];
}
