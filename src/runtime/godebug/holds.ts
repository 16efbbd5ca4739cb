/**
 * Which stops of a Go manager under Delve are held for the user, as the runtime's stepper decides
 * for a TypeScript reconciler: a Step holds at the next phase whatever it is; otherwise a stop
 * holds when its phase has a breakpoint, or when its outcome does (the call's Conflict, Forbidden
 * or NotFound; an error or a requeue in the Result). Every other stop is continued at once.
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

/** Why the stop is held ('step' or 'breakpoint'), or undefined to continue past it. */
export function holdReason(
  p: GoPhase,
  b: GoBreakpoints,
  stepping: boolean,
): 'step' | 'breakpoint' | undefined {
  if (stepping) return 'step';
  if (b.phases.includes(p.phase)) return 'breakpoint';
  if (outcomesAt(p).some((o) => b.outcomes.includes(o))) return 'breakpoint';
  return undefined;
}
