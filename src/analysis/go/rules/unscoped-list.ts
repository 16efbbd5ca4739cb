/**
 * unscoped-list: `List(ctx, &list)` with no option, or only options that do not narrow it
 * (Limit, Continue, an empty `&client.ListOptions{}` or `client.MatchingLabels{}`,
 * `client.InNamespace("")`). A full List on every reconcile costs memory and API-server time that grow
 * with the cluster; scope it by namespace, labels or an indexed field.
 */
import type { Fix } from '../../diagnostics';
import { fix, packageName } from '../../fixes';
import { CLUSTER_SCOPED_KINDS, NAMESPACED_KINDS } from '../kinds';
import { CLIENT_PKG, paramsOf, type GoPackage } from '../package';
import { clusterScopedByDoc } from '../intent';
import type { GoRule } from '../rule';
import { localVarType, type ClientCall, type PathFunc } from '../reconcilers';
import { argVar, callArgs, callee, field, named, typeName, unparen, type Node } from '../syntax';

/** Options that do not narrow what a List returns. */
const NOT_NARROWING = new Set(['Limit', 'Continue', 'UnsafeDisableDeepCopy']);

/** ListOptions fields that narrow a List, and values that leave it whole. */
const NARROWING_FIELDS = new Set(['Namespace', 'LabelSelector', 'FieldSelector']);
const EVERYTHING = /^(""|nil|labels\.Everything\(\)|fields\.Everything\(\))$/;
/** Option types that are a selector themselves: narrowing only when not empty. */
const SELECTOR_LITERALS = new Set(['MatchingLabels', 'MatchingFields', 'HasLabels']);

function narrows(opt: Node): boolean {
  let o = unparen(opt);
  if (!o) return true;
  if (o.type === 'unary_expression' && o.childForFieldName('operator')?.type === '&')
    o = unparen(field(o, 'operand'));
  if (!o) return true;
  if (o.type === 'composite_literal') {
    const type = typeName(field(o, 'type'));
    const elements = named(field(o, 'body')).filter((e) => e.type !== 'comment');
    if (type === 'ListOptions') {
      // `&client.ListOptions{}` narrows nothing; `{Namespace: ns}` does.
      return elements.some((e) => {
        const [key, value] = named(e);
        return (
          e.type === 'keyed_element' &&
          NARROWING_FIELDS.has(key?.text ?? '') &&
          !EVERYTHING.test(value?.text.trim() ?? '')
        );
      });
    }
    if (type && SELECTOR_LITERALS.has(type)) return elements.length > 0;
    return true;
  }
  if (o.type === 'call_expression') {
    const c = callee(o);
    if (c?.name === 'InNamespace') return !EVERYTHING.test(callArgs(o)[0]?.text.trim() ?? '');
    return !(c && NOT_NARROWING.has(c.name));
  }
  if (o.type === 'selector_expression') return !NOT_NARROWING.has(o.text.split('.').pop() ?? '');
  return true; // variables and other expressions: assume they scope the list
}

/**
 * Lists we do not judge: of a cluster-scoped kind, built in or custom (declared so by a kubebuilder
 * marker on its API type or by its CRD's YAML, see scope.ts: it cannot be scoped by namespace, and
 * what reads them all — namespaces matched against patterns, node states — needs them all), or
 * into a `client.ObjectList` parameter (a generic helper: its callers choose the kind and the reason).
 */
function exempt(pkg: GoPackage, fn: PathFunc, cc: ClientCall): boolean {
  const list = argVar(cc.args[1]);
  if (!list) return false;
  const param = paramsOf(fn.node).find((p) => p.name === list);
  if (param) return /\bObjectList$/.test(param.type.text);
  const type = localVarType(fn, list);
  const kind = type?.replace(/List$/, '');
  return !!kind && (CLUSTER_SCOPED_KINDS.has(kind) || pkg.clusterScoped(kind));
}

/**
 * "Scope the List to the reconciled object's namespace", offered only where that is sound to
 * suggest: a List of a namespaced built-in kind, in a function that holds the reconciled object.
 * (Listing across namespaces on purpose is rare enough to be suppressed where meant.)
 */
function fixesFor(fn: PathFunc, cc: ClientCall): Fix[] {
  const list = argVar(cc.args[1]);
  const owner = [...fn.reconciled][0];
  const kind = list ? localVarType(fn, list)?.replace(/List$/, '') : null;
  const last = cc.args[cc.args.length - 1];
  if (!owner || !kind || !NAMESPACED_KINDS.has(kind) || !last) return [];
  const client = packageName(fn.file, CLIENT_PKG, 'client');
  if (!client) return [];
  const at = fn.file.lines.range(last.endIndex, last.endIndex);
  return [
    fix(
      `Scope the List to ${owner}'s namespace`,
      { range: at, newText: `, ${client.name}.InNamespace(${owner}.Namespace)` },
      ...client.edits,
    ),
  ];
}

/**
 * A List into a fresh literal: `r.List(ctx, &monitoringv1.ServiceMonitorList{})`. Nothing can
 * read its items, only its error is looked at — a probe of whether the API server serves the kind
 * (an optional CRD installed or not), not a read of the objects, so scoping it is not the point.
 */
function probe(cc: ClientCall): boolean {
  let arg = unparen(cc.args[1] ?? null);
  if (arg?.type === 'unary_expression' && arg.text.startsWith('&'))
    arg = unparen(field(arg, 'operand'));
  return arg?.type === 'composite_literal';
}

/**
 * Does the function clear state its reconciler holds (`r.RegexCache.Reset()`)? Then its Lists
 * rebuild an in-memory index of every object of their kinds (a cache the process serves from), and
 * an index needs all of them: scoping the List would make it wrong. Lists that feed what the
 * reconcile writes, in a function that clears nothing, are still reported.
 */
const CLEARS = new Set(['Reset', 'Clear', 'Purge', 'Flush']);
function rebuildsHeldState(fn: PathFunc): boolean {
  if (!fn.receiver) return false;
  return fn.calls.some((call) => {
    const c = callee(call);
    if (!c || !CLEARS.has(c.name) || c.operand?.type !== 'selector_expression') return false;
    return field(c.operand, 'operand')?.text === fn.receiver && callArgs(call).length === 0;
  });
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
          if (cc.args.slice(2).some(narrows) || exempt(ctx.pkg, fn, cc) || probe(cc)) continue;
          if (clusterScopedByDoc(fn.file, cc.call) || rebuildsHeldState(fn)) continue;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message:
              'This List has no namespace, label or field selector. It reads every object of the kind on each reconcile; pass client.InNamespace, client.MatchingLabels or client.MatchingFields.',
            fixes: () => fixesFor(fn, cc),
          });
        }
      }
    }
  },
};
