/**
 * unscoped-list (TypeScript): `client.list(type)` with no options, or options without namespace,
 * labelSelector or fieldSelector. Every object of the kind is read on each reconcile.
 */
import * as ts from 'typescript';
import { clientCalls, skipParens } from '../reconcilers';
import type { TsRule } from '../rule';

const SCOPING = new Set(['namespace', 'labelSelector', 'fieldSelector']);

function scoped(opts: ts.Expression | undefined): boolean {
  if (!opts) return false;
  const o = skipParens(opts);
  if (!ts.isObjectLiteralExpression(o)) return true; // a variable: assume it scopes
  return o.properties.some((p) => {
    if (ts.isSpreadAssignment(p)) return true;
    const name =
      p.name && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name)) ? p.name.text : '';
    return SCOPING.has(name);
  });
}

export const tsUnscopedList: TsRule = {
  id: 'unscoped-list',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of clientCalls(fn)) {
          if (cc.status || cc.method !== 'list' || cc.call.arguments.length === 0) continue;
          if (cc.call.arguments.some((a) => ts.isSpreadElement(a)) || scoped(cc.call.arguments[1]))
            continue;
          ctx.report(
            cc.call,
            'This list has no namespace, labelSelector or fieldSelector. It reads every object of the kind on each reconcile; pass { namespace } or a selector.',
          );
        }
      }
    }
  },
};
