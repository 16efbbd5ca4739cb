/**
 * status-error-ignored: `_ = r.Status().Update(ctx, &obj)`, a bare status write, or `err = ...`
 * whose err is overwritten or never read. A failed status write left unreturned means the next
 * reconcile decides from a stale status and nothing retries the write.
 */
import { checkedCall, fix, insertAfter, replaceNode, replaceStatement } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { returnErrorStatement, type PathFunc } from '../reconcilers';
import {
  ancestor,
  callee,
  contains,
  descendants,
  field,
  mentions,
  named,
  statements,
  type Node,
} from '../syntax';

function message(method: string): string {
  return `The error of Status().${method} is dropped: if the write fails nothing retries it and the next reconcile reads a stale status. Check it and return it.`;
}

export const statusErrorIgnored: GoRule = {
  id: 'status-error-ignored',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of fn.clientCalls) {
          if (!cc.status) continue;
          const verdict = discarded(fn, cc.call);
          if (!verdict) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message:
              verdict.kind === 'swallowed'
                ? `The error of Status().${cc.method} is checked and then dropped: the failure branch ends by returning nil, so nothing retries the write and the next reconcile reads a stale status. Return ${verdict.err}.`
                : message(cc.method),
            fixes: () => fixesFor(fn, verdict, cc.call),
          });
        }
      }
    }
  },
};

type Verdict =
  | { kind: 'dropped'; stmt: Node }
  | { kind: 'unchecked'; stmt: Node; err: string }
  /** checked, but the branch for a failure ends in a return that hands back nil (`nil`: that expression) */
  | { kind: 'swallowed'; nil: Node; err: string };

/** Zero values: a final `return false, nil` says "nothing to do", not "try again". */
const ZERO = /^(false|0|""|nil|(\w+\.)?Result\{\})$/;

/**
 * `if err != nil { ...; return false, nil }` after the status write: the failure is seen and
 * then dropped. The branch may handle some errors on the way (`if IsConflict(err) { return true,
 * nil }`); what counts is where it ends: a return that gives nil for the error and zero values
 * for the rest, with `err` handed to nothing but predicates and logs.
 */
function swallowed(fn: PathFunc, stmt: Node, err: string): Verdict | null {
  if (fn.results[fn.results.length - 1] !== 'error') return null;
  let check: Node | null = null;
  if (stmt.parent?.type === 'if_statement' && field(stmt.parent, 'initializer')?.id === stmt.id) {
    check = stmt.parent;
  } else if (stmt.parent?.type === 'statement_list') {
    const siblings = statements(stmt.parent.parent);
    check = siblings[siblings.findIndex((x) => x.id === stmt.id) + 1] ?? null;
  }
  if (check?.type !== 'if_statement') return null;
  if (field(check, 'condition')?.text.replace(/\s+/g, ' ') !== `${err} != nil`) return null;
  const branch = statements(field(check, 'consequence'));
  const last = branch[branch.length - 1];
  if (last?.type !== 'return_statement') return null;
  const exprs = named(named(last)[0]);
  if (exprs.length !== fn.results.length || exprs[exprs.length - 1].text !== 'nil') return null;
  if (!exprs.slice(0, -1).every((e) => ZERO.test(e.text.replace(/\s+/g, '')))) return null;
  // The error must go nowhere but into predicates (IsConflict) and logs.
  for (const id of descendants(field(check, 'consequence'), 'identifier')) {
    if (id.text !== err) continue;
    const call = ancestor(id, ['call_expression'], check);
    const name = call ? (callee(call)?.name ?? '') : '';
    if (!/^Is[A-Z]|^(Error|Info|Errorf|Infof|Warn|Warning|Warnf|Printf|Println|V)$/.test(name))
      return null;
  }
  return { kind: 'swallowed', nil: exprs[exprs.length - 1], err };
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
