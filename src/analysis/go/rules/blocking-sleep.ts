/**
 * blocking-sleep: time.Sleep, `<-time.After(d)` or a wait.Poll* loop inside a reconcile path. The
 * worker is held for the whole wait (other objects queue behind it) and the wait is lost on a
 * restart; return Result{RequeueAfter: d} instead. Waits inside a goroutine are not reported.
 */
import { fix, replaceNode } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { returnsResultAndError, type PathFunc } from '../reconcilers';
import {
  ancestor,
  callArgs,
  descendants,
  field,
  inFuncLiteral,
  inGoroutine,
  qualifiedCallee,
  type Node,
} from '../syntax';

const WAITS = new Set([
  'time.Sleep',
  'wait.Poll',
  'wait.PollImmediate',
  'wait.PollInfinite',
  'wait.PollImmediateInfinite',
  'wait.PollUntil',
  'wait.PollUntilContextTimeout',
  'wait.PollUntilContextCancel',
  'wait.PollImmediateUntil',
  'wait.ExponentialBackoff',
  'wait.ExponentialBackoffWithContext',
]);

export const blockingSleep: GoRule = {
  id: 'blocking-sleep',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const call of fn.calls) {
          const q = qualifiedCallee(call);
          if (!q) continue;
          const name = q.join('.');
          let what: string | null = null;
          if (WAITS.has(name)) what = name;
          else if (
            name === 'time.After' &&
            call.parent?.type === 'unary_expression' &&
            call.parent.text.startsWith('<-')
          )
            what = '<-time.After';
          if (!what || inGoroutine(call, fn.body)) continue;
          ctx.report({
            file: fn.file,
            node: what === '<-time.After' ? call.parent! : call,
            message: `${what} holds this reconcile worker for the whole wait. The wait is lost on restart; return a Result with RequeueAfter instead.`,
            fixes: () => (what === 'time.Sleep' ? fixesFor(fn, call) : []),
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
