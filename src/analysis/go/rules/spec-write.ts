/**
 * spec-write: Reconcile assigns to `<obj>.Spec...` of the object it reconciles and the path also
 * writes that object back (Update/Patch, not the status subresource). Spec is the user's desired
 * state; each write is a new generation and a new event, so a controller that keeps "fixing" its
 * own spec reconciles forever and fights `kubectl apply`. Keep derived values in status.
 */
import type { GoRule } from '../rule';
import { argVar, descendants, field, named, type Node } from '../syntax';

export const specWrite: GoRule = {
  id: 'spec-write',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      const writesBack = rec.funcs.some((fn) =>
        fn.clientCalls.some(
          (cc) =>
            !cc.status &&
            (cc.method === 'Update' || cc.method === 'Patch') &&
            fn.reconciled.has(argVar(cc.args[1]) ?? ''),
        ),
      );
      if (!writesBack) continue;
      for (const fn of rec.funcs) {
        for (const a of descendants(fn.body, [
          'assignment_statement',
          'inc_statement',
          'dec_statement',
        ])) {
          const targets: Node[] =
            a.type === 'assignment_statement' ? named(field(a, 'left')) : named(a).slice(0, 1);
          const hit = targets.find((t) => {
            const m = /^(\w+)\.Spec\b/.exec(t.text);
            return !!m && fn.reconciled.has(m[1]);
          });
          if (!hit) continue;
          const v = hit.text.split('.')[0];
          ctx.report({
            file: fn.file,
            node: a,
            message: `Reconcile changes ${hit.text} of the object it reconciles and writes ${v} back: spec is the user's desired state and each write triggers another reconcile (an endless loop if it differs each time); keep derived values in status.`,
          });
        }
      }
    }
  },
};
