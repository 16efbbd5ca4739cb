/**
 * Which stops of a Go manager under Delve are held for the user, as the runtime's stepper decides
 * for a TypeScript reconciler: a Step holds at the next phase whatever it is (the session's start
 * at the user's Reconcile); otherwise a stop holds when its phase has a breakpoint, or when its
 * outcome does (the call's Conflict, Forbidden or NotFound; an error or a requeue in the
 * Result). Every other stop is continued at once.
 */
import type { OutcomeBreak } from '../stepper';
import type { Phase } from '../trace';
import type { GoPhase } from './phases';

export interface GoBreakpoints {
  phases: Phase[];
  outcomes: OutcomeBreak[];
}

/** The outcomes a stop shows: its call's failure reason, and the Result's error or requeue. */
export function outcomesAt(p: GoPhase): OutcomeBreak[] {
  const out: OutcomeBreak[] = [];
  const reason = p.call?.reason;
  if (reason === 'Conflict' || reason === 'Forbidden' || reason === 'NotFound') out.push(reason);
  if (p.result?.error) out.push('error');
  if (p.result && (p.result.requeue || p.result.requeueAfterMs > 0)) out.push('requeue');
  return out;
}

/**
 * How the program was let run: `true` for a Step, `false` for a Continue, `'reconcile'` for the
 * session's start, which runs to the user's own Reconcile — the first thing a Go developer wants
 * to see, not controller-runtime's reconcileHandler in the module cache.
 */
export type Stepping = boolean | 'reconcile';

/** Why the stop is held ('step' or 'breakpoint'), or undefined to continue past it. */
export function holdReason(
  p: GoPhase,
  b: GoBreakpoints,
  stepping: Stepping,
): 'step' | 'breakpoint' | undefined {
  if (stepping === 'reconcile') return p.phase === 'reconcile' ? 'step' : undefined;
  if (stepping) return 'step';
  if (b.phases.includes(p.phase)) return 'breakpoint';
  if (outcomesAt(p).some((o) => b.outcomes.includes(o))) return 'breakpoint';
  return undefined;
}
