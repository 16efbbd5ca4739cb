/**
 * observed-generation: the reconciled object's status is replaced (Status().Update) but `Status.ObservedGeneration`
 * is never set anywhere on the path, although the status type has that field. Clients (kubectl
 * wait, Argo CD, other controllers) then cannot tell whether the status describes the latest spec.
 * Reported only when the API type is in view and has the field.
 */
import { fix, insertBefore } from '../../fixes';
import type { GoRule } from '../rule';
import { argVar, enclosingStatement, type Node } from '../syntax';
import type { GoPackage } from '../package';

function bare(typeText: string | undefined): string | null {
  if (!typeText) return null;
  return typeText.replace(/^\*/, '').replace(/^\w+\./, '') || null;
}

function hasObservedGeneration(pkg: GoPackage, objectType: string | null): boolean {
  const obj = pkg.struct(objectType);
  const status = pkg.struct(bare(obj?.fields.get('Status')));
  return !!status?.fields.has('ObservedGeneration');
}

export const observedGeneration: GoRule = {
  id: 'observed-generation',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      if (!hasObservedGeneration(ctx.pkg, rec.objectType)) continue;
      // Set anywhere on the path (directly or through a helper): fine.
      if (rec.funcs.some((f) => f.body.text.includes('ObservedGeneration'))) continue;
      for (const fn of rec.funcs) {
        for (const cc of fn.clientCalls) {
          // Update replaces the whole status, so this writer owns ObservedGeneration. A Patch may
          // touch only its own fields while another controller owns the rest: not reported.
          if (!cc.status || cc.method !== 'Update') continue;
          const v = argVar(cc.args[1]);
          if (!v || !fn.reconciled.has(v)) continue;
          const stmt: Node | null = enclosingStatement(cc.call);
          ctx.report({
            file: fn.file,
            node: cc.call,
            message: `This status write never sets ${v}.Status.ObservedGeneration. ${rec.objectType}'s status has the field, and without it clients cannot tell whether the status reflects the latest spec; set ${v}.Status.ObservedGeneration = ${v}.Generation.`,
            fixes: () =>
              stmt
                ? [
                    fix(
                      'Set ObservedGeneration before writing status',
                      insertBefore(fn.file, stmt, [
                        `${v}.Status.ObservedGeneration = ${v}.Generation`,
                      ]),
                    ),
                  ]
                : [],
          });
        }
      }
    }
  },
};
