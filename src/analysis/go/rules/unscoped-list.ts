/**
 * unscoped-list: `List(ctx, &list)` with no option, or only options that do not narrow it
 * (Limit, Continue). A full List on every reconcile costs memory and API-server time that grow
 * with the cluster; scope it by namespace, labels or an indexed field.
 */
import type { GoRule } from '../rule';
import { callee, unparen, type Node } from '../syntax';

/** Options that do not narrow what a List returns. */
const NOT_NARROWING = new Set(['Limit', 'Continue', 'UnsafeDisableDeepCopy']);

function narrows(opt: Node): boolean {
  const o = unparen(opt);
  if (!o) return true;
  if (o.type === 'call_expression') {
    const c = callee(o);
    return !(c && NOT_NARROWING.has(c.name));
  }
  if (o.type === 'selector_expression') return !NOT_NARROWING.has(o.text.split('.').pop() ?? '');
  return true; // variables, `opts...`, &client.ListOptions{...}: assume they scope the list
}

export const unscopedList: GoRule = {
  id: 'unscoped-list',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of fn.clientCalls) {
          if (cc.status || cc.method !== 'List' || cc.args.length < 2) continue;
          // A trailing `opts...` spreads unknown options: assume they scope the list.
          if (cc.call.text.includes('...)')) continue;
          if (cc.args.slice(2).some(narrows)) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message:
              'This List has no namespace, label or field selector: it reads every object of the kind on each reconcile. Pass client.InNamespace, client.MatchingLabels or client.MatchingFields.',
          });
        }
      }
    }
  },
};
