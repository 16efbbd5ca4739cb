/**
 * blocking-sleep (TypeScript): `await new Promise(r => setTimeout(r, ms))`, `await setTimeout(ms)`
 * (node:timers/promises) or `await sleep(ms)` where sleep is such a wrapper in the same file. The
 * reconcile holds its worker for the whole wait; return { requeueAfter: ms } instead.
 */
import * as ts from 'typescript';
import { forEachDescendant, skipParens } from '../reconcilers';
import type { TsRule } from '../rule';

function sleepsDirectly(e: ts.Expression): boolean {
  const x = skipParens(e);
  if (ts.isNewExpression(x) && ts.isIdentifier(x.expression) && x.expression.text === 'Promise') {
    return /\bsetTimeout\s*\(/.test(x.getText());
  }
  return (
    ts.isCallExpression(x) && ts.isIdentifier(x.expression) && x.expression.text === 'setTimeout'
  );
}

export const tsBlockingSleep: TsRule = {
  id: 'blocking-sleep',
  check(ctx) {
    // Same-file helpers that only wrap a timer: `const sleep = (ms) => new Promise(...)`.
    const wrappers = new Set<string>();
    forEachDescendant(ctx.sf, (n) => {
      if (
        ts.isFunctionDeclaration(n) &&
        n.name &&
        n.body &&
        /\bsetTimeout\s*\(/.test(n.body.getText())
      )
        wrappers.add(n.name.text);
      if (
        ts.isVariableDeclaration(n) &&
        ts.isIdentifier(n.name) &&
        n.initializer &&
        ts.isArrowFunction(n.initializer) &&
        /\bsetTimeout\s*\(/.test(n.initializer.body.getText())
      ) {
        wrappers.add(n.name.text);
      }
    });
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        forEachDescendant(fn.body, (n) => {
          if (!ts.isAwaitExpression(n)) return;
          const e = skipParens(n.expression);
          const wrapped =
            ts.isCallExpression(e) &&
            ts.isIdentifier(e.expression) &&
            wrappers.has(e.expression.text);
          if (!sleepsDirectly(e) && !wrapped) return;
          ctx.report(
            n,
            'Waiting inside reconcile holds this worker for the whole delay. The wait is lost on restart; return { requeueAfter: ms } instead.',
          );
        });
      }
    }
  },
};
