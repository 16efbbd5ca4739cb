/**
 * Reconciles the end of a run cut off: a Go manager stopped at the end of a robustness run cancels
 * the context of the reconciles in flight, and they end with `context canceled` (a request waiting
 * out a 429's Retry-After, a rate limiter's wait). That error is the run's own stop, not the
 * operator failing under the fault, so the report never cites it as a case's cause.
 */
import { warn, type ReconcileTrace } from './trace';

/** The warning a cut-off reconcile carries (the debugger lists it with the reconcile). */
export const CUT_OFF_WARNING =
  'cut off: the run ended while this reconcile ran (the manager was stopped), so its error is not a failure of the operator';

/**
 * Go's context.Canceled. controller-runtime cancels a reconcile's context only when the manager
 * stops, so a reconcile ending with it was stopped, whatever its time says.
 */
const CANCELED = /\bcontext canceled\b/;

/**
 * Marks the reconciles that erred once the run's stop began (`stoppedAt`, the traces' clock) or
 * with a cancelled context.
 */
export function markCutOff(traces: ReconcileTrace[], stoppedAt: number): void {
  for (const t of traces) {
    if (!t.error || t.warnings.includes(CUT_OFF_WARNING)) continue;
    if ((t.end ?? Infinity) >= stoppedAt || CANCELED.test(t.error.message))
      warn(t, CUT_OFF_WARNING);
  }
}

/** The reconcile's error is the run being cut off (markCutOff), not the operator's. */
export function cutOff(t: ReconcileTrace): boolean {
  return t.warnings.includes(CUT_OFF_WARNING) || (!!t.error && CANCELED.test(t.error.message));
}
