/**
 * What becomes of the error of a call (a status write, or a helper that returns one): returned,
 * dropped (`_ =`, a bare call, `defer`), left unchecked, checked and swallowed by a `return nil`,
 * or only logged. And whether dropping it is harmless: every path on returns a non-nil error, so
 * controller-runtime requeues and the next pass does the write again.
 */
import type { PathFunc } from './reconcilers';
import {
  ancestor,
  callee,
  contains,
  descendants,
  enclosingStatement,
  field,
  mentions,
  named,
  statements,
  type Node,
} from './syntax';
import { certainlyNonNil, type ErrorOf } from './errors';
import { terminates } from './flow';
import { resultVariable } from './results';

export type Verdict =
  | { kind: 'dropped'; stmt: Node }
  /** `defer <call>`: dropped, and run on the success paths too (never pardoned) */
  | { kind: 'deferred'; stmt: Node }
  | { kind: 'unchecked'; stmt: Node; err: string }
  /** checked, but the branch for a failure ends in a return that hands back nil (`nil`: that expression) */
  | { kind: 'swallowed'; nil: Node; err: string; partial?: boolean }
  /** checked, the failure only logged, and the path goes on (`check`: the `if`) */
  | { kind: 'logged'; check: Node; err: string; within: Within };

/** Where a logged-and-dropped write runs: in the function's own flow, a defer, or a goroutine. */
export type Within = 'flow' | 'defer' | 'goroutine';

/** Zero values: a final `return false, nil` says "nothing to do", not "try again". */
const ZERO = /^(false|0|""|nil|(\w+\.)?Result\{\})$/;

/**
 * `if err != nil { ...; return false, nil }` after the status write: the failure is seen and
 * then dropped. The branch may handle some errors on the way (`if IsConflict(err) { return true,
 * nil }`); what counts is where it ends: a return that gives nil for the error and zero values
 * for the rest, with `err` handed to nothing but predicates and logs.
 */
export function swallowed(fn: PathFunc, stmt: Node, err: string): Verdict | null {
  let check: Node | null = null;
  if (stmt.parent?.type === 'if_statement' && field(stmt.parent, 'initializer')?.id === stmt.id) {
    check = stmt.parent;
  } else if (stmt.parent?.type === 'statement_list') {
    const siblings = statements(stmt.parent.parent);
    check = siblings[siblings.findIndex((x) => x.id === stmt.id) + 1] ?? null;
  }
  if (check?.type !== 'if_statement') return null;
  // `err != nil`, or `err != nil && !apierrors.IsNotFound(err)`: some failures are let go
  // silently and the others only reach the branch.
  const cond = field(check, 'condition')?.text.replace(/\s+/g, ' ') ?? '';
  if (cond !== `${err} != nil` && !cond.startsWith(`${err} != nil && `)) return null;
  // `err != nil && apierrors.IsConflict(err)`: a positive test lets every other failure skip the
  // branch, so what comes after the `if` decides their fate.
  if (POSITIVE.test(cond.slice(`${err} != nil && `.length))) return fallThrough(fn, check, err);
  // The error must go nowhere but into predicates (IsConflict) and logs. A log is a call whose
  // result is thrown away: `fmt.Errorf("...: %w", err)` appended to a list is the error kept.
  for (const id of descendants(field(check, 'consequence'), 'identifier')) {
    if (id.text !== err) continue;
    const call = ancestor(id, ['call_expression'], check);
    const name = call ? (callee(call)?.name ?? '') : '';
    if (/^Is[A-Z]/.test(name)) continue;
    const top = call && outermostCall(call);
    if (!top || top.parent?.type !== 'expression_statement') return null;
    if (!LOG.test(callee(top)?.name ?? '')) return null;
  }
  const branch = statements(field(check, 'consequence'));
  const last = branch[branch.length - 1];
  if (last?.type !== 'return_statement') {
    // Only logged, and the path goes on past the `if`: unless some return in the branch decides.
    if (descendants(field(check, 'consequence'), 'return_statement').length > 0) return null;
    if (branch.some(terminates)) return null;
    // `if err != nil { log }` and then `return ..., err`: the error goes on to the caller. (An
    // `if err := ...;` initializer's err dies with the `if`: later mentions are another err.)
    if (check.id !== stmt.parent?.id && readBeforeOverwrite(fn, check, err)) return null;
    return { kind: 'logged', check, err, within: within(check, fn.body) };
  }
  // A bare `return` ending the branch in a deferred function or a goroutine (no results to
  // hand the error to): logged, and gone.
  const where = within(check, fn.body);
  if (where !== 'flow' && named(last).length === 0)
    return { kind: 'logged', check, err, within: where };
  if (fn.results[fn.results.length - 1] !== 'error') return null;
  const nil = zeroReturn(fn, last);
  return nil && { kind: 'swallowed', nil, err };
}

/** A test that some kind of error happened (`IsConflict(err)`, `errors.Is(err, x)`), not negated. */
const POSITIVE = /^\(*\s*(\w+\.)?Is[A-Z]?\w*\(/;

/**
 * The failures a positive test lets past its `if`: swallowed when the statement right after it
 * returns nil for the error and zero values for the rest (`return false, nil`).
 */
function fallThrough(fn: PathFunc, check: Node, err: string): Verdict | null {
  if (fn.results[fn.results.length - 1] !== 'error' || check.parent?.type !== 'statement_list')
    return null;
  const siblings = statements(check.parent.parent);
  const next = siblings[siblings.findIndex((x) => x.id === check.id) + 1];
  if (next?.type !== 'return_statement' || mentions(next, err)) return null;
  const nil = zeroReturn(fn, next);
  return nil && { kind: 'swallowed', nil, err, partial: true };
}

/** The `nil` of a return that gives nil for the error and zero values for the rest. */
function zeroReturn(fn: PathFunc, ret: Node): Node | null {
  const exprs = named(named(ret)[0]);
  if (exprs.length !== fn.results.length || exprs[exprs.length - 1].text !== 'nil') return null;
  if (!exprs.slice(0, -1).every((e) => ZERO.test(e.text.replace(/\s+/g, '')))) return null;
  return exprs[exprs.length - 1];
}

/** Calls that log: the error handed to one of these (as a statement) is only logged. */
const LOG = /^(Error|Info|Errorf|Infof|Warn|Warning|Warnf|Printf|Println|V)$/;

/**
 * The call whose argument (or whose argument's argument) this call is: `fmt.Errorf(...)` inside
 * `log.Error(fmt.Errorf(...), "")` → the log call; inside `append(errs, fmt.Errorf(...))` → append.
 */
function outermostCall(call: Node): Node {
  let top = call;
  for (;;) {
    const p = top.parent;
    if (p?.type === 'argument_list' && p.parent?.type === 'call_expression') top = p.parent;
    else if (p?.type === 'selector_expression' && p.parent?.type === 'call_expression')
      top = p.parent; // logger.WithValues(...).Error(err, "")
    else return top;
  }
}

/** Is `node` inside a function literal run by `defer` or `go` (below `body`)? */
export function within(node: Node, body: Node): Within {
  const lit = ancestor(node, ['func_literal'], body);
  if (lit?.parent?.type !== 'call_expression') return 'flow';
  const stmt = lit.parent.parent?.type;
  return stmt === 'defer_statement' ? 'defer' : stmt === 'go_statement' ? 'goroutine' : 'flow';
}

/**
 * A dropped status error is harmless when every path from the write on returns a non-nil error:
 * controller-runtime requeues, and the next pass writes the status again. A failure that is
 * checked and logged is handled too when every path on returns a Result that requeues
 * (`ctrl.Result{RequeueAfter: d}`, `&ctrl.Result{Requeue: true}` from a helper whose Result
 * Reconcile returns), as a failure branch ending in such a return is (see `swallowed`): the
 * failure is seen and the next pass writes again. An error thrown away unseen (`_ =`, a bare call)
 * is not pardoned by a requeue: nothing says the write failed. Walks the statements
 * after the write outwards (past the `if` it is in, and so on) to the first `return` that ends the
 * path, collecting the returns met on the way; every one must hand back an error known non-nil
 * (or, for a logged failure, a requeueing Result).
 * A loop or a function literal on the way makes the answer unknown: no pardon.
 */
export function pardoned(
  fn: PathFunc,
  call: Node,
  v: Verdict,
  errorOf?: ErrorOf,
  follow?: Follow,
): boolean {
  if (v.kind === 'swallowed' || v.kind === 'deferred') return false;
  const requeue = v.kind === 'logged';
  if (fn.results[fn.results.length - 1] !== 'error' && !requeue) return false;
  const from = v.kind === 'logged' ? v.check : enclosingStatement(call);
  const returns = from && returnsAfter(fn, from);
  return !!returns && retried(fn, returns, errorOf, requeue, follow);
}

/**
 * The returns that can end the path from `from` on: the statements after it, outwards (past the
 * `if` it is in, and so on) to the first `return` that ends the path, and the returns met on the
 * way. Null when unknown: a loop or a function literal around `from`, or no ending found.
 */
export function returnsAfter(fn: PathFunc, from: Node): Node[] | null {
  const returns: Node[] = [];
  for (let x: Node | null = from; x && x.id !== fn.body.id; x = x.parent) {
    const p: Node | null = x.parent;
    if (!p || p.type === 'for_statement' || p.type === 'func_literal') return null;
    if (p.type !== 'statement_list' && p.type !== 'block') continue;
    const after = p.children.slice(p.children.indexOf(x) + 1).filter((s) => s.isNamed);
    for (const s of after) {
      if (s.type === 'return_statement') return [...returns, s];
      if (s.type === 'defer_statement' || s.type === 'go_statement') continue;
      returns.push(
        ...descendants(s, 'return_statement').filter((r) => !ancestor(r, ['func_literal'], s)),
      );
      if (terminates(s)) return returns;
    }
  }
  return null;
}

/**
 * The path function a call returned as is (`return r.reconcile(ctx, obj)`) runs, with what its
 * callees' errors are: its returns are the caller's.
 */
export type Follow = (fn: PathFunc, call: Node) => { fn: PathFunc; errorOf?: ErrorOf } | null;

/** Does every one of these returns hand back an error that cannot be nil (or, if `requeue`, a requeue)? */
export function retried(
  fn: PathFunc,
  returns: Node[],
  errorOf?: ErrorOf,
  requeue = false,
  follow?: Follow,
  seen: Set<PathFunc> = new Set([fn]),
): boolean {
  const error = fn.results[fn.results.length - 1] === 'error';
  return (
    returns.length > 0 &&
    returns.every((r) => {
      const exprs = named(named(r)[0]);
      const tail = exprs.length === 1 && exprs[0].type === 'call_expression' && follow;
      const next = tail ? follow(fn, exprs[0]) : null;
      if (next && !seen.has(next.fn) && next.fn.results.length === fn.results.length) {
        const own = descendants(next.fn.body, 'return_statement').filter(
          (x) => !ancestor(x, ['func_literal'], next.fn.body),
        );
        return retried(next.fn, own, next.errorOf, requeue, follow, new Set([...seen, next.fn]));
      }
      if (exprs.length !== fn.results.length) return false;
      if (error && certainlyNonNil(exprs[exprs.length - 1], fn.body, errorOf)) return true;
      // A requeueing literal, returned as is or held by a variable (`return rr, nil` after
      // `rr := ctrl.Result{RequeueAfter: d}`), as result-with-error reads it.
      return (
        requeue &&
        exprs.some((e) => {
          if (e.type !== 'identifier') return requeues(e);
          const held = resultVariable(fn, r, e.text);
          return !!held && requeues(held);
        })
      );
    })
  );
}

/**
 * A Result literal that asks for another pass: `ctrl.Result{RequeueAfter: d}`, `reconcile.Result{
 * Requeue: true}`, or its address (`&ctrl.Result{...}`, a helper's `*Result`). `Result{}` and
 * fields set to zero values do not.
 */
export function requeues(expr: Node): boolean {
  let x = expr;
  if (x.type === 'unary_expression' && x.text.startsWith('&')) x = field(x, 'operand') ?? x;
  if (x.type !== 'composite_literal') return false;
  if (!/(^|\.)Result$/.test(field(x, 'type')?.text ?? '')) return false;
  return descendants(field(x, 'body'), 'keyed_element').some((k) => {
    const [key, value] = named(k);
    if (!key || !value) return false;
    const name = key.text.trim();
    const v = value.text.trim();
    if (name === 'Requeue') return v === 'true';
    return name === 'RequeueAfter' && v !== '0';
  });
}

/** How the call's error is lost, or null when it reaches an `if`, a return, or an argument. */
export function discarded(fn: PathFunc, call: Node): Verdict | null {
  const parent = call.parent;
  if (!parent) return null;
  if (parent.type === 'expression_statement') return { kind: 'dropped', stmt: parent };
  // `defer r.Status().Update(ctx, obj)`: a deferred call's results go nowhere, on every path.
  if (parent.type === 'defer_statement') return { kind: 'deferred', stmt: parent };
  if (parent.type !== 'expression_list') return null;
  const stmt = parent.parent;
  if (!stmt || (stmt.type !== 'assignment_statement' && stmt.type !== 'short_var_declaration')) {
    return null;
  }
  // `err := write(...)`, or `msg, err := helper(...)`: the error comes last.
  const left = named(field(stmt, 'left'));
  const err = left[left.length - 1];
  if (!err || err.type !== 'identifier' || named(parent).length !== 1) return null;
  if (left.length > 1 && err.text === '_') return { kind: 'dropped', stmt };
  const name = err.text;
  // An `if err := ...; err != nil` initializer is checked: is the failure then dropped?
  if (stmt.parent?.type !== 'statement_list') return swallowed(fn, stmt, name);
  if (name === '_') return { kind: 'dropped', stmt };
  if (!readBeforeOverwrite(fn, stmt, name)) return { kind: 'unchecked', stmt, err: name };
  return swallowed(fn, stmt, name);
}

/** Does `body` declare `name` (`name := ...`, `x, name := ...`, `var name ...`)? */
function declaresIn(body: Node | null, name: string): boolean {
  if (!body) return false;
  return descendants(body, ['short_var_declaration', 'var_spec']).some((d) =>
    (d.type === 'var_spec' ? [field(d, 'name')] : named(field(d, 'left'))).some(
      (x) => x?.type === 'identifier' && x.text === name,
    ),
  );
}

/**
 * Is `name` read after `stmt` before being overwritten? Looks at the first later mention in source
 * order; inside a loop any mention in the loop counts as a read (the next iteration may check it).
 */
export function readBeforeOverwrite(fn: PathFunc, stmt: Node, name: string): boolean {
  // A variable the loop body (or a function literal called again) declares itself is a new one
  // each time round: an earlier mention cannot read it.
  const found = ancestor(stmt, ['for_statement', 'func_literal'], fn.body);
  const loop = found && !declaresIn(field(found, 'body'), name) ? found : null;
  if (loop && descendants(loop, 'identifier').some((i) => i.text === name && !contains(stmt, i))) {
    return true;
  }
  const later = descendants(fn.body, 'identifier')
    .filter((i) => i.text === name && i.startIndex >= stmt.endIndex)
    .sort((a, b) => a.startIndex - b.startIndex);
  const first = later[0];
  if (!first) return false;
  const list = first.parent;
  const assign = list?.parent;
  if (
    list?.type === 'expression_list' &&
    assign &&
    (assign.type === 'assignment_statement' || assign.type === 'short_var_declaration') &&
    field(assign, 'left')?.id === list.id
  ) {
    const right = field(assign, 'right');
    return !!right && mentions(right, name);
  }
  return true;
}
