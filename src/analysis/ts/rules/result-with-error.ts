/**
 * result-with-error (TypeScript): a `return { requeue... }` inside `finally`. In TypeScript a
 * reconcile either returns a Result or throws; a return in `finally` silently replaces the thrown
 * error with the Result, so the failure is neither logged nor retried with backoff.
 */
import * as ts from 'typescript';
import { forEachDescendant } from '../reconcilers';
import type { TsRule } from '../rule';

export const tsResultWithError: TsRule = {
  id: 'result-with-error',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        forEachDescendant(fn.body, (n) => {
          if (!ts.isTryStatement(n) || !n.finallyBlock) return;
          forEachDescendant(n.finallyBlock, (r) => {
            if (
              !ts.isReturnStatement(r) ||
              !r.expression ||
              !ts.isObjectLiteralExpression(r.expression)
            )
              return;
            if (insideNestedFunction(r, n.finallyBlock!)) return;
            ctx.report(
              r,
              'A return in finally replaces any error thrown in the try. The failure is replaced by this Result, so it is neither reported nor retried; return after the try, or rethrow.',
            );
          });
        });
      }
    }
  },
};

function insideNestedFunction(node: ts.Node, stop: ts.Node): boolean {
  for (let p = node.parent; p && p !== stop; p = p.parent) {
    if (ts.isFunctionLike(p)) return true;
  }
  return false;
}
