/**
 * status-error-ignored: `_ = r.Status().Update(ctx, &obj)`, a bare status write, `err = ...`
 * whose err is overwritten or never read, or a failure that is checked and only logged. A failed
 * status write left unreturned means the next reconcile decides from a stale status and nothing
 * retries the write.
 *
 * Not when every path after the write returns a non-nil error: `_ = r.Status().Update(ctx, obj);
 * return ctrl.Result{}, err` inside `if err != nil` requeues the request, and the next pass writes
 * the status again. A deferred write gets no such pardon: it runs on the success paths too.
 */
import { checkedCall, fix, insertAfter, replaceNode, replaceStatement } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { dirname, relative, sep } from 'node:path';
import { importPathOf, type GoFile, type GoPackage } from '../package';
import { makePathFunc, returnErrorStatement, type PathFunc } from '../reconcilers';
import {
  ancestor,
  callee,
  contains,
  descendants,
  enclosingStatement,
  field,
  mentions,
  named,
  qualifiedCallee,
  statements,
  type Node,
} from '../syntax';
import { certainlyNonNil } from '../errors';
import { terminates } from '../flow';

/** First sentence for the Problems panel (≤ 100 characters), the rest for the hover. */
function message(method: string, v: Verdict): string {
  switch (v.kind) {
    case 'swallowed':
      return `The error of Status().${method} is checked and then dropped. The failure branch ends by returning nil, so nothing retries the write and the next reconcile reads a stale status. Return ${v.err}.`;
    case 'logged':
      return `The error of Status().${method} is logged and dropped. ${LOGGED_WHERE[v.within]}, so nothing retries the write and the next reconcile reads a stale status. ${LOGGED_FIX[v.within]}.`;
    default:
      return `The error of Status().${method} is dropped. If the write fails nothing retries it and the next reconcile reads a stale status. Check it and return it.`;
  }
}

export const statusErrorIgnored: GoRule = {
  id: 'status-error-ignored',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of fn.clientCalls) {
          if (!cc.status) continue;
          const verdict = discarded(fn, cc.call);
          if (!verdict || pardoned(fn, cc.call, verdict)) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message: message(cc.method, verdict),
            fixes: () => fixesFor(fn, verdict, cc.call),
          });
        }
        for (const call of fn.calls) {
          const drop = droppedByModuleHelper(ctx.pkg, fn, call);
          if (!drop) continue;
          const stmt = enclosingStatement(call);
          if (stmt && pardoned(fn, call, { kind: 'dropped', stmt })) continue;
          const where = `${relativeTo(fn.file.path, drop.file.path)}:${drop.line}`;
          ctx.report({
            file: fn.file,
            node: call,
            message: `${drop.helper} drops the error of its Status().${drop.method}. It is ${drop.how} at ${where}: if the write fails nothing retries it and the next reconcile reads a stale status. Return the error from ${drop.helper} and check it here.`,
          });
        }
      }
    }
  },
};

/** A status write whose error a function of another package drops, as found once per function. */
interface Drop {
  method: string;
  how: string;
  file: GoFile;
  line: number;
}

const drops = new WeakMap<Node, Drop | null>();

/**
 * `common.UpdateStatus(ctx, c, obj)` into another package of the module, whose status write's
 * error is dropped or only logged there (and not pardoned: see `pardoned`). Computed once per
 * function declaration and kept as long as its parsed node lives.
 */
function droppedByModuleHelper(
  pkg: GoPackage,
  fn: PathFunc,
  call: Node,
): (Drop & { helper: string }) | null {
  const q = qualifiedCallee(call);
  const path = q && importPathOf(fn.file, q[0]);
  const target = path && q ? pkg.moduleFunc(path, q[1]) : null;
  if (!target || !q) return null;
  let drop = drops.get(target.decl.node);
  if (drop === undefined) {
    drop = null;
    const helper = makePathFunc(target.pkg, target.decl, false);
    for (const cc of helper?.clientCalls ?? []) {
      if (!cc.status || !helper) continue;
      const v = discarded(helper, cc.call);
      if (!v || v.kind === 'swallowed' || pardoned(helper, cc.call, v)) continue;
      const how = v.kind === 'logged' ? 'only logged' : 'discarded';
      const line = helper.file.lines.range(cc.call.startIndex, cc.call.startIndex).start.line + 1;
      drop = { method: cc.method, how, file: helper.file, line };
      break;
    }
    drops.set(target.decl.node, drop);
  }
  return drop && { ...drop, helper: q.join('.') };
}

/** `to` as seen from the folder of `from`, with forward slashes. */
function relativeTo(from: string, to: string): string {
  return relative(dirname(from), to).split(sep).join('/') || to;
}

type Verdict =
  | { kind: 'dropped'; stmt: Node }
  | { kind: 'unchecked'; stmt: Node; err: string }
  /** checked, but the branch for a failure ends in a return that hands back nil (`nil`: that expression) */
  | { kind: 'swallowed'; nil: Node; err: string }
  /** checked, the failure only logged, and the path goes on (`check`: the `if`) */
  | { kind: 'logged'; check: Node; err: string; within: Within };

/** Where a logged-and-dropped write runs: in the function's own flow, a defer, or a goroutine. */
type Within = 'flow' | 'defer' | 'goroutine';

const LOGGED_WHERE: Record<Within, string> = {
  flow: 'The reconcile goes on to return success',
  defer: 'The deferred write runs when Reconcile returns success too',
  goroutine: 'It runs in a goroutine that reports to no one',
};
const LOGGED_FIX: Record<Within, string> = {
  flow: 'Return the error',
  defer: 'Return the error (assign it to a named error result)',
  goroutine: 'Write the status in Reconcile, or requeue and write it on the next pass',
};

/** Zero values: a final `return false, nil` says "nothing to do", not "try again". */
const ZERO = /^(false|0|""|nil|(\w+\.)?Result\{\})$/;

/**
 * `if err != nil { ...; return false, nil }` after the status write: the failure is seen and
 * then dropped. The branch may handle some errors on the way (`if IsConflict(err) { return true,
 * nil }`); what counts is where it ends: a return that gives nil for the error and zero values
 * for the rest, with `err` handed to nothing but predicates and logs.
 */
function swallowed(fn: PathFunc, stmt: Node, err: string): Verdict | null {
  let check: Node | null = null;
  if (stmt.parent?.type === 'if_statement' && field(stmt.parent, 'initializer')?.id === stmt.id) {
    check = stmt.parent;
  } else if (stmt.parent?.type === 'statement_list') {
    const siblings = statements(stmt.parent.parent);
    check = siblings[siblings.findIndex((x) => x.id === stmt.id) + 1] ?? null;
  }
  if (check?.type !== 'if_statement') return null;
  if (field(check, 'condition')?.text.replace(/\s+/g, ' ') !== `${err} != nil`) return null;
  // The error must go nowhere but into predicates (IsConflict) and logs.
  for (const id of descendants(field(check, 'consequence'), 'identifier')) {
    if (id.text !== err) continue;
    const call = ancestor(id, ['call_expression'], check);
    const name = call ? (callee(call)?.name ?? '') : '';
    if (!/^Is[A-Z]|^(Error|Info|Errorf|Infof|Warn|Warning|Warnf|Printf|Println|V)$/.test(name))
      return null;
  }
  const branch = statements(field(check, 'consequence'));
  const last = branch[branch.length - 1];
  if (last?.type !== 'return_statement') {
    // Only logged, and the path goes on past the `if`: unless some return in the branch decides.
    if (descendants(field(check, 'consequence'), 'return_statement').length > 0) return null;
    if (branch.some(terminates)) return null;
    return { kind: 'logged', check, err, within: within(check, fn.body) };
  }
  if (fn.results[fn.results.length - 1] !== 'error') return null;
  const exprs = named(named(last)[0]);
  if (exprs.length !== fn.results.length || exprs[exprs.length - 1].text !== 'nil') return null;
  if (!exprs.slice(0, -1).every((e) => ZERO.test(e.text.replace(/\s+/g, '')))) return null;
  return { kind: 'swallowed', nil: exprs[exprs.length - 1], err };
}

/** Is `node` inside a function literal run by `defer` or `go` (below `body`)? */
function within(node: Node, body: Node): Within {
  const lit = ancestor(node, ['func_literal'], body);
  if (lit?.parent?.type !== 'call_expression') return 'flow';
  const stmt = lit.parent.parent?.type;
  return stmt === 'defer_statement' ? 'defer' : stmt === 'go_statement' ? 'goroutine' : 'flow';
}

/**
 * A dropped status error is harmless when every path from the write on returns a non-nil error:
 * controller-runtime requeues, and the next pass writes the status again. Walks the statements
 * after the write outwards (past the `if` it is in, and so on) to the first `return` that ends the
 * path, collecting the returns met on the way; every one must hand back an error known non-nil.
 * A loop or a function literal on the way makes the answer unknown: no pardon.
 */
function pardoned(fn: PathFunc, call: Node, v: Verdict): boolean {
  if (v.kind === 'swallowed') return false;
  if (fn.results[fn.results.length - 1] !== 'error') return false;
  const from = v.kind === 'logged' ? v.check : enclosingStatement(call);
  const returns: Node[] = [];
  for (let x = from; x && x.id !== fn.body.id; x = x.parent) {
    const p: Node | null = x.parent;
    if (!p || p.type === 'for_statement' || p.type === 'func_literal') return false;
    if (p.type !== 'statement_list' && p.type !== 'block') continue;
    const after = p.children.slice(p.children.indexOf(x) + 1).filter((s) => s.isNamed);
    for (const s of after) {
      if (s.type === 'return_statement') return returnsError(fn, [...returns, s]);
      if (s.type === 'defer_statement' || s.type === 'go_statement') continue;
      returns.push(
        ...descendants(s, 'return_statement').filter((r) => !ancestor(r, ['func_literal'], s)),
      );
      if (terminates(s)) return returnsError(fn, returns);
    }
  }
  return false;
}

/** Does every one of these returns hand back an error that cannot be nil? */
function returnsError(fn: PathFunc, returns: Node[]): boolean {
  return (
    returns.length > 0 &&
    returns.every((r) => {
      const exprs = named(named(r)[0]);
      return (
        exprs.length === fn.results.length && certainlyNonNil(exprs[exprs.length - 1], fn.body)
      );
    })
  );
}

/** How the call's error is lost, or null when it reaches an `if`, a return, or an argument. */
function discarded(fn: PathFunc, call: Node): Verdict | null {
  const parent = call.parent;
  if (!parent) return null;
  if (parent.type === 'expression_statement') return { kind: 'dropped', stmt: parent };
  if (parent.type !== 'expression_list') return null;
  const stmt = parent.parent;
  if (!stmt || (stmt.type !== 'assignment_statement' && stmt.type !== 'short_var_declaration')) {
    return null;
  }
  const left = named(field(stmt, 'left'));
  if (left.length !== 1 || left[0].type !== 'identifier') return null;
  const name = left[0].text;
  // An `if err := ...; err != nil` initializer is checked: is the failure then dropped?
  if (stmt.parent?.type !== 'statement_list') return swallowed(fn, stmt, name);
  if (name === '_') return { kind: 'dropped', stmt };
  if (!readBeforeOverwrite(fn, stmt, name)) return { kind: 'unchecked', stmt, err: name };
  return swallowed(fn, stmt, name);
}

/**
 * Is `name` read after `stmt` before being overwritten? Looks at the first later mention in source
 * order; inside a loop any mention in the loop counts as a read (the next iteration may check it).
 */
function readBeforeOverwrite(fn: PathFunc, stmt: Node, name: string): boolean {
  const loop = ancestor(stmt, ['for_statement', 'func_literal'], fn.body);
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

function fixesFor(fn: PathFunc, v: Verdict, call: Node): Fix[] {
  if (v.kind === 'swallowed') {
    return [fix(`Return ${v.err} when the status write fails`, replaceNode(fn.file, v.nil, v.err))];
  }
  if (v.kind === 'logged') {
    const ret = v.within !== 'flow' ? null : returnErrorStatement(fn, v.err);
    const branch = statements(field(v.check, 'consequence'));
    const last = branch[branch.length - 1];
    if (!ret || !last) return [];
    return [fix(`Return ${v.err} when the status write fails`, insertAfter(fn.file, last, [ret]))];
  }
  const ret = returnErrorStatement(fn, 'err');
  if (!ret) return [];
  if (v.kind === 'dropped') {
    return [
      fix(
        'Check the status write error and return it',
        replaceStatement(fn.file, v.stmt, checkedCall(call.text, ret)),
      ),
    ];
  }
  const retNamed = returnErrorStatement(fn, v.err)!;
  return [
    fix(
      `Return ${v.err} when the status write fails`,
      insertAfter(fn.file, v.stmt, [`if ${v.err} != nil {`, `\t${retNamed}`, '}']),
    ),
  ];
}
