/**
 * update-unfetched: `r.Update(ctx, obj)` where obj was built locally (a literal, or a builder such
 * as buildDesiredDeployment) and never read. It carries no resourceVersion, and what happens then
 * depends on the kind's update strategy in kube-apiserver (AllowUnconditionalUpdate):
 *  - custom resources (and Leases, CRDs, APIServices) reject it: 422, `metadata.resourceVersion:
 *    Invalid value: 0: must be specified for an update`;
 *  - most built-in kinds (Deployments, ConfigMaps, Services, ...) accept it and replace the live
 *    object whole, erasing what others wrote (defaults, HPA or `kubectl scale` replicas, other
 *    controllers' fields) — and each such write is a new event, often a hot loop.
 * Get the live object and change it, or use controllerutil.CreateOrUpdate / server-side apply.
 */
import type { GoRule } from '../rule';
import { localOrigin, passedToUnknownCall, scopeOf, type Origin } from '../origins';
import { importPathOf, type GoFile } from '../package';
import { argVar, contains, descendants, field, named, type Node } from '../syntax';
import type { PathFunc } from '../reconcilers';

/** Built-in kinds whose strategy has AllowUnconditionalUpdate() false (kube-apiserver registry). */
const CONDITIONAL_ONLY = new Set(['Lease', 'CustomResourceDefinition', 'APIService']);

/** Is `name` read into, copied over or otherwise given a resourceVersion between def and use? */
function mayBeFetched(fn: PathFunc, name: string, update: Node, def: Node): boolean {
  if (passedToUnknownCall(fn, name, def, update)) return true;
  const scope = scopeOf(def);
  const between = (n: Node): boolean =>
    contains(scope, n) && n.startIndex > def.startIndex && n.startIndex < update.startIndex;
  const text = fn.body.text.slice(
    def.startIndex - fn.body.startIndex,
    update.startIndex - fn.body.startIndex,
  );
  if (text.includes(`${name}.ResourceVersion`) || text.includes(`${name}.SetResourceVersion`))
    return true;
  if (text.includes(`${name}.ObjectMeta =`)) return true;
  // `*name = ...` or `name.DeepCopyInto`-style copies from a fetched object.
  for (const a of descendants(fn.body, 'assignment_statement')) {
    if (a.id === def.id || !between(a)) continue;
    const left = named(field(a, 'left'));
    if (left.some((l) => l.text === `*${name}` || l.text === name)) return true;
  }
  return false;
}

/** What the API server does with this Update, by the kind's update strategy. */
function outcome(file: GoFile, origin: Origin): string {
  const type = field(origin.literal, 'type');
  const kind = origin.typeName;
  const qualifier = type?.type === 'qualified_type' ? field(type, 'package')?.text : null;
  const path = qualifier ? importPathOf(file, qualifier) : null;
  const generic =
    'for a custom resource the API server rejects this Update (422), and for a built-in kind such as a Deployment it accepts it and overwrites what others wrote';
  const rejected = (what: string): string =>
    `the API server rejects this Update of ${what} (422: metadata.resourceVersion: Invalid value: 0: must be specified for an update)`;
  if (kind === 'Unstructured') return generic;
  if (kind && CONDITIONAL_ONLY.has(kind)) return rejected(`a ${kind}`);
  if (kind && path?.startsWith('k8s.io/api/')) {
    return `the API server accepts this Update of a ${kind} without one and replaces the live object whole, overwriting what others wrote (defaults, scaled replicas, other controllers' fields); each such write is a new event, often a hot loop`;
  }
  if (kind && (path || !qualifier)) return rejected(`a custom resource (${kind})`);
  return generic;
}

export const updateUnfetched: GoRule = {
  id: 'update-unfetched',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        for (const cc of fn.clientCalls) {
          if (cc.status || cc.method !== 'Update') continue;
          const name = argVar(cc.args[1]);
          if (!name || fn.reconciled.has(name)) continue;
          const origin = localOrigin(ctx.pkg, fn, name, cc.call);
          if (!origin || origin.literal.text.includes('ResourceVersion')) continue;
          if (mayBeFetched(fn, name, cc.call, origin.def)) continue;
          const from = origin.builder ? ` by ${origin.builder.name}` : '';
          const file = origin.builder?.file ?? fn.file;
          ctx.report({
            file: fn.file,
            node: cc.call,
            message: `This Update sends ${name}, built locally${from} and never read. It has no resourceVersion: ${outcome(file, origin)}. Get the live object and change it, or use controllerutil.CreateOrUpdate.`,
          });
        }
      }
    }
  },
};
