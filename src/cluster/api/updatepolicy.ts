/**
 * Which built-in kinds refuse an update that names no resourceVersion: those whose strategy's
 * `AllowUnconditionalUpdate()` is false (Leases, PodDisruptionBudgets, webhook configurations,
 * admission policies, CRDs…). Generated from the strategies of the pinned release
 * (scripts/apigen-updatepolicy.mjs). Custom resources refuse it too, as their strategy does.
 */
import generated from '../../../generated/updatepolicy.json';

const CONDITIONAL_ONLY = new Set<string>(generated.conditionalOnly);

/** Whether an update of the built-in `group`/`kind` without a resourceVersion goes through. */
export function allowsUnconditionalUpdate(group: string, kind: string): boolean {
  return !CONDITIONAL_ONLY.has(`${group}/${kind}`);
}
