/**
 * status-error-ignored: `_ = r.Status().Update(ctx, &obj)`, a bare status write, or `err = ...`
 * whose err is overwritten or never read. A failed status write left unreturned means the next
 * reconcile decides from a stale status and nothing retries the write.
 */
import { checkedCall, fix, insertAfter, replaceStatement } from '../../fixes';
import type { Fix } from '../../diagnostics';
import type { GoRule } from '../rule';
import { returnErrorStatement, type PathFunc } from '../reconcilers';
import { ancestor, contains, descendants, field, mentions, named, type Node } from '../syntax';

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
            message: message(cc.method),
            fixes: () => fixesFor(fn, verdict, cc.call),
          });
        }
      }
    }
  },
};

type Verdict = { kind: 'dropped'; stmt: Node } | { kind: 'unchecked'; stmt: Node; err: string };

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
  // Only a statement that sits in a statement list: an `if x := ...;` initializer is checked.
  if (stmt.parent?.type !== 'statement_list') return null;
  const left = named(field(stmt, 'left'));
  if (left.length !== 1 || left[0].type !== 'identifier') return null;
  const name = left[0].text;
  if (name === '_') return { kind: 'dropped', stmt };
  return readBeforeOverwrite(fn, stmt, name) ? null : { kind: 'unchecked', stmt, err: name };
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
