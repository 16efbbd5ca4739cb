/**
 * update-unfetched: `r.Update(ctx, obj)` where obj was built locally (a literal, or a builder such
 * as buildDesiredDeployment) and never read. It carries no resourceVersion, so the API server
 * rejects the Update ("metadata.resourceVersion: must be specified for an update"); Get the live
 * object and change it, or use controllerutil.CreateOrUpdate / server-side apply.
 */
import type { GoRule } from '../rule';
import { localOrigin, passedToUnknownCall, scopeOf } from '../origins';
import { argVar, contains, descendants, field, named, type Node } from '../syntax';
import type { PathFunc } from '../reconcilers';

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
          ctx.report({
            file: fn.file,
            node: cc.call,
            message: `${name} is built locally${from} and never read, so it has no resourceVersion and this Update is rejected; Get the live object and change it, or use controllerutil.CreateOrUpdate.`,
          });
        }
      }
    }
  },
};
