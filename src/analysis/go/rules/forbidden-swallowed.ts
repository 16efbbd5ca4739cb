/**
 * forbidden-swallowed: `if apierrors.IsForbidden(err) { ...; return ctrl.Result{}, nil }`. A
 * quota or RBAC refusal becomes "success": the request is forgotten and nothing retries until an
 * unrelated event arrives. Return the error or a Result with RequeueAfter.
 */
import { fix, replaceNode } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { importName } from '../package';
import { returnsResultAndError, type PathFunc } from '../reconcilers';
import { descendants, field, named, statements, type Node } from '../syntax';
import { isZeroResult, resultLiteral } from '../results';

const FORBIDDEN = /\bIsForbidden\(|exceeded quota/;

export const forbiddenSwallowed: GoRule = {
  id: 'forbidden-swallowed',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        if (!returnsResultAndError(fn)) continue;
        for (const s of descendants(fn.body, 'if_statement')) {
          const cond = field(s, 'condition')?.text ?? '';
          if (!FORBIDDEN.test(cond) || /!\s*\w+\.IsForbidden/.test(cond)) continue;
          const last = statements(field(s, 'consequence')).pop();
          if (last?.type !== 'return_statement') continue;
          const exprs = named(named(last)[0]);
          const lit = resultLiteral(exprs[0]);
          if (exprs.length !== 2 || !lit || exprs[1].text !== 'nil' || !isZeroResult(lit)) continue;
          ctx.report({
            file: fn.file,
            node: last,
            message:
              'A Forbidden (quota or RBAC) error is turned into success with no requeue. Nothing retries until an unrelated event; return the error or a Result with RequeueAfter.',
            fixes: () => fixesFor(fn, lit),
          });
        }
      }
    }
  },
};

function fixesFor(fn: PathFunc, lit: Node): Fix[] {
  const time = importName(fn.file, 'time');
  if (!time) return [];
  const type = field(lit, 'type')!.text;
  return [
    fix(
      'Requeue after 30 seconds',
      replaceNode(fn.file, lit, `${type}{RequeueAfter: 30 * ${time}.Second}`),
    ),
  ];
}
