/**
 * Result values of a reconcile path: a `ctrl.Result{...}` literal, whether it is zero, and the
 * literal a variable surely holds where it is returned (`rr := ctrl.Result{RequeueAfter: d}` ...
 * `return rr, err`). result-with-error, forbidden-swallowed and the requeue pardon of
 * status-error-ignored read Results the same way.
 */
import { reaches } from './flow';
import { isResultType, type PathFunc } from './reconcilers';
import { descendants, field, named, unparen, type Node } from './syntax';

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
export function resultVariable(fn: PathFunc, ret: Node, name: string): Node | null {
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
