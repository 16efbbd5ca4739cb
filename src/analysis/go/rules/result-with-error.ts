/**
 * result-with-error: `return ctrl.Result{RequeueAfter: d}, err` with err known to be non-nil.
 * controller-runtime ignores the Result when the error is set and requeues with backoff, so the
 * intended delay never happens. Reported only when the error is certainly non-nil (a helper of
 * the module that always returns one, `r.logAndWrap(err, "...")`, counts).
 */
import { fix, replaceNode } from '../../fixes';
import type { GoRule } from '../rule';
import { returnsResultAndError } from '../reconcilers';
import { certainlyNonNil } from '../errors';
import { isZeroResult, resultLiteral, resultVariable } from '../results';
import { descendants, field, inFuncLiteral, named, unparen } from '../syntax';

/** A literal written over several lines, as one: `ctrl.Result{RequeueAfter: time.Minute}`. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\{ /g, '{').replace(/,? \}/g, '}');
}

export const resultWithError: GoRule = {
  id: 'result-with-error',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        if (!returnsResultAndError(fn)) continue;
        const errorOf = ctx.summaries.errorOf(fn);
        for (const ret of descendants(fn.body, 'return_statement')) {
          if (inFuncLiteral(ret, fn.body)) continue;
          const exprs = named(named(ret)[0]);
          if (exprs.length !== 2) continue;
          const first = unparen(exprs[0]);
          const lit =
            first?.type === 'identifier'
              ? resultVariable(fn, ret, first.text)
              : resultLiteral(exprs[0]);
          if (!first || !lit || isZeroResult(lit) || !certainlyNonNil(exprs[1], fn.body, errorOf))
            continue;
          const type = field(lit, 'type')!.text;
          const held = first.type === 'identifier' ? ` (held by ${first.text})` : '';
          ctx.report({
            file: fn.file,
            node: first,
            message: `This Result is ignored: an error is returned with it. controller-runtime ignores ${oneLine(lit.text)}${held} when an error is returned and requeues with backoff instead; return ${type}{} with the error, or the Result with nil.`,
            fixes: () => [
              fix(
                'Drop the Result returned beside the error',
                replaceNode(fn.file, first, `${type}{}`),
              ),
            ],
          });
        }
      }
    }
  },
};
