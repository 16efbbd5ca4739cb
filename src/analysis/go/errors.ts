/**
 * Is an error expression certainly non-nil where it stands? Asked by result-with-error (a Result
 * beside a non-nil error is ignored) and status-error-ignored (a path that returns a non-nil error
 * is retried). Conservative: unknown is "may be nil".
 */
import { callArgs, field, qualifiedCallee, unparen, type Node } from './syntax';

/** Constructors that never return nil. `errors.Wrap(nil)` is nil in pkg/errors, so not listed. */
const ALWAYS_ERROR = new Set(['fmt.Errorf', 'errors.New', 'errors.Errorf']);
/** Wrappers that return nil for a nil error (pkg/errors and friends). */
const WRAPPERS = new Set(['Wrap', 'Wrapf', 'WithStack', 'WithMessage', 'WithMessagef']);

/**
 * Is `x` checked non-nil by an enclosing `if x != nil` (as a whole condition or a conjunct), or
 * in the `else` of an `if x == nil` (as a whole condition or a disjunct)?
 */
export function guardedNonNil(node: Node, name: string, stop: Node): boolean {
  let n: Node | null = node;
  while (n && n.id !== stop.id) {
    const p: Node | null = n.parent;
    if (p?.type === 'if_statement') {
      const cond = field(p, 'condition')?.text ?? '';
      const within = (op: string) => cond.split(op).map((s) => s.trim());
      if (field(p, 'consequence')?.id === n.id && within('&&').includes(`${name} != nil`))
        return true;
      if (field(p, 'alternative')?.id === n.id && within('||').includes(`${name} == nil`))
        return true;
    }
    if (p?.type === 'func_literal') return false;
    n = p;
  }
  return false;
}

/**
 * What the module knows of a call's error result: 'always' non-nil (a helper whose every return
 * is `fmt.Errorf(...)`), non-nil whenever its argument at this index is (a helper that returns
 * the error it is given, perhaps after logging or tracing it), or null: unknown.
 */
export type ErrorOf = (call: Node) => 'always' | number | null;

/**
 * Certainly non-nil: a constructor's result, a variable (or its wrapping) checked `!= nil` around
 * it, or the result of a helper of the module that `errorOf` knows never to return nil here.
 */
export function certainlyNonNil(expr: Node, stop: Node, errorOf?: ErrorOf): boolean {
  const e = unparen(expr);
  if (!e) return false;
  if (e.type === 'identifier') return e.text !== 'nil' && guardedNonNil(e, e.text, stop);
  if (e.type !== 'call_expression') return false;
  const q = qualifiedCallee(e);
  if (q && ALWAYS_ERROR.has(q.join('.'))) return true;
  // errors.Wrap(err, ...) is nil only when err is: inside `if err != nil` it is not.
  if (q && WRAPPERS.has(q[1])) {
    const first = unparen(callArgs(e)[0] ?? null);
    return first?.type === 'identifier' && guardedNonNil(first, first.text, stop);
  }
  if (errorOf) {
    const known = errorOf(e);
    if (known === 'always') return true;
    const arg = known === null ? undefined : callArgs(e)[known];
    return !!arg && certainlyNonNil(arg, stop, errorOf);
  }
  return false;
}
