/**
 * spec-write (TypeScript): `obj.spec.x = ...` on the reconciled object (read with
 * `client.get(type, req)`) and the same object written back with update/patch. Each write of the
 * spec is a new generation and a new reconcile.
 */
import * as ts from 'typescript';
import { clientCalls, forEachDescendant, skipParens } from '../reconcilers';
import type { TsRule } from '../rule';

function specRoot(target: ts.Expression): string | null {
  const m = /^(\w+)\.spec\b/.exec(target.getText());
  return m ? m[1] : null;
}

export const tsSpecWrite: TsRule = {
  id: 'spec-write',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      const written = new Set<string>();
      for (const fn of rec.funcs) {
        for (const cc of clientCalls(fn)) {
          const arg = cc.call.arguments[0];
          if (cc.status || (cc.method !== 'update' && cc.method !== 'patch') || !arg) continue;
          const a = skipParens(arg);
          if (ts.isIdentifier(a) && fn.reconciled.has(a.text)) written.add(a.text);
        }
      }
      if (written.size === 0) continue;
      for (const fn of rec.funcs) {
        forEachDescendant(fn.body, (n) => {
          let target: ts.Expression | null = null;
          if (
            ts.isBinaryExpression(n) &&
            n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
            n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
          )
            target = n.left;
          if (
            (ts.isPostfixUnaryExpression(n) || ts.isPrefixUnaryExpression(n)) &&
            (n.operator === ts.SyntaxKind.PlusPlusToken ||
              n.operator === ts.SyntaxKind.MinusMinusToken)
          )
            target = n.operand;
          const root = target ? specRoot(target) : null;
          if (!root || !fn.reconciled.has(root) || !written.has(root)) return;
          ctx.report(
            n,
            `Reconcile writes back ${target!.getText()}, a spec field of the object it reconciles. Each spec write triggers another reconcile (an endless loop if it differs each time); keep derived values in status.`,
          );
        });
      }
    }
  },
};
