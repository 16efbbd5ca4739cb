/**
 * A wait that a function makes only when a bool parameter says so (`if !wait || dryRun { return
 * ... }` before it, or `if wait { ... }` around it). A caller that passes the other constant
 * (`EnsureDeleted(ctx, c, obj, false)`) does not wait; one that passes its own parameter hands the
 * condition on to its callers; anything else may wait.
 */
import { terminates } from './flow';
import { field, named, unparen, type Node } from './syntax';

/** The call blocks only when parameter `param` (an index into the parameters) is `when`. */
export interface Guard {
  param: number;
  when: boolean;
}

/** `p` → p is true, `!p` → p is false; anything else says nothing. */
function literalGuard(cond: Node | null, params: string[], holds: boolean): Guard | null {
  const c = unparen(cond);
  if (!c) return null;
  if (c.type === 'identifier') {
    const i = params.indexOf(c.text);
    return i >= 0 ? { param: i, when: holds } : null;
  }
  if (c.type === 'unary_expression' && c.text.trimStart().startsWith('!'))
    return literalGuard(field(c, 'operand'), params, !holds);
  return null;
}

/** Terms of a chain of one binary operator: `a || b || c` → [a, b, c]. */
function terms(cond: Node | null, op: string): Node[] {
  const c = unparen(cond);
  if (!c) return [];
  if (c.type === 'binary_expression' && field(c, 'operator')?.text === op)
    return [...terms(field(c, 'left'), op), ...terms(field(c, 'right'), op)];
  if (c.type === 'binary_expression') {
    // `operator` is an anonymous token: read it off the text between the operands.
    const l = field(c, 'left');
    const r = field(c, 'right');
    if (
      l &&
      r &&
      c.text.slice(l.endIndex - c.startIndex, r.startIndex - c.startIndex).trim() === op
    )
      return [...terms(l, op), ...terms(r, op)];
  }
  return [c];
}

/** Does the block end in a return (or another statement that leaves it)? */
function leaves(block: Node | null): boolean {
  const stmts = named(block).flatMap((s) => (s.type === 'statement_list' ? named(s) : [s]));
  const last = stmts.filter((s) => s.type !== 'comment').pop();
  return !!last && terminates(last);
}

/** The bool parameter `call` runs under inside `body`, or null when it runs whatever they are. */
export function boolGuard(body: Node, call: Node, params: string[]): Guard | null {
  let n = call;
  while (n.parent && n.id !== body.id) {
    const p: Node = n.parent;
    if (p.type === 'if_statement' && field(p, 'consequence')?.id === n.id) {
      for (const t of terms(field(p, 'condition'), '&&')) {
        const g = literalGuard(t, params, true);
        if (g) return g;
      }
    }
    if (p.type === 'block' || p.type === 'statement_list') {
      for (const s of named(p)) {
        if (s.startIndex >= n.startIndex) break;
        if (s.type !== 'if_statement' || field(s, 'alternative') || field(s, 'initializer'))
          continue;
        if (!leaves(field(s, 'consequence'))) continue;
        // Got past `if a || b { return }`: every term is false here.
        for (const t of terms(field(s, 'condition'), '||')) {
          const g = literalGuard(t, params, false);
          if (g) return g;
        }
      }
    }
    n = p;
  }
  return null;
}

/**
 * A callee's guard seen from one call: 'off' when the argument is the constant that skips the
 * wait, the caller's own guard when the argument is one of its bool parameters, null (it may
 * wait) otherwise.
 */
export function guardAtCall(
  guard: Guard | undefined,
  args: Node[],
  callerParams: string[],
): Guard | 'off' | null {
  if (!guard) return null;
  const a = unparen(args[guard.param] ?? null);
  if (!a) return null;
  if (a.type === 'true' || a.type === 'false')
    return (a.type === 'true') === guard.when ? null : 'off';
  if (a.type === 'identifier') {
    const i = callerParams.indexOf(a.text);
    if (i >= 0) return { param: i, when: guard.when };
  }
  return null;
}
