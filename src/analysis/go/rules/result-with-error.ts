/**
 * result-with-error: `return ctrl.Result{RequeueAfter: d}, err` with err known to be non-nil.
 * controller-runtime ignores the Result when the error is set and requeues with backoff, so the
 * intended delay never happens. Reported only when the error is certainly non-nil (a helper of
 * the module that always returns one, `r.logAndWrap(err, "...")`, counts).
 */
import { fix, replaceNode } from '../../fixes';
import type { GoRule } from '../rule';
import { reaches } from '../flow';
import { isResultType, returnsResultAndError, type PathFunc } from '../reconcilers';
import { certainlyNonNil } from '../errors';
import { descendants, field, inFuncLiteral, named, unparen, type Node } from '../syntax';

/** A literal written over several lines, as one: `ctrl.Result{RequeueAfter: time.Minute}`. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').replace(/\{ /g, '{').replace(/,? \}/g, '}');
}

export function isZeroResult(lit: Node): boolean {
  const body = field(lit, 'body');
  if (!body) return true;
  return named(body)
    .filter((e) => e.type === 'keyed_element')
    .every((e) => {
      const value = named(e)[1]?.text ?? '';
      return value === 'false' || value === '0' || value === '';
    });
}

export function resultLiteral(node: Node | undefined): Node | null {
  const n = unparen(node ?? null);
  if (!n || n.type !== 'composite_literal') return null;
  return isResultType(field(n, 'type')?.text) ? n : null;
}

/**
 * `rr := ctrl.Result{RequeueAfter: d}` ... `return rr, err`: the non-zero Result literal a
 * variable surely holds at `ret`. Every assignment of the variable (or of one of its fields) that
 * may reach the return must be such a literal; a call (`res, err := helper()`) or a field write
 * leaves its value unknown.
 */
function resultVariable(fn: PathFunc, ret: Node, name: string): Node | null {
  let found: Node | null = null;
  for (const d of descendants(fn.body, [
    'short_var_declaration',
    'assignment_statement',
    'var_spec',
  ])) {
    const isSpec = d.type === 'var_spec';
    const left = isSpec ? named(d).filter((n) => n.type === 'identifier') : named(field(d, 'left'));
    const i = left.findIndex((l) => l.text === name || l.text.startsWith(`${name}.`));
    if (i < 0 || !reaches(fn.body, d, ret)) continue;
    if (left[i].text !== name) return null; // rr.RequeueAfter = ...
    const values = named(field(d, isSpec ? 'value' : 'right'));
    const lit = values.length === left.length ? resultLiteral(values[i]) : null;
    if (!lit || isZeroResult(lit)) return null;
    found = lit;
  }
  return found;
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
