/**
 * Graceful deletion, as the Pod strategy's CheckGracefulDelete and the generic registry's
 * BeforeDelete decide it: a Pod bound to a node and still running is not removed by a DELETE but
 * marked — `deletionTimestamp` at now + its grace period, `deletionGracePeriodSeconds` — and stays
 * (Terminating) until its kubelet has stopped it and deletes it with a grace period of 0. Other
 * kinds have no graceful strategy.
 */
import { isObject } from '../apimachinery/patch';
import type { ResourceType } from './registry';
import type { DeleteOptions, KubeObject } from '../apimachinery/types';

/** The grace period a DELETE gives a Pod (CheckGracefulDelete); 0 for every other kind. */
export function gracePeriodSeconds(t: ResourceType, obj: KubeObject, opts: DeleteOptions): number {
  if (t.info.kind !== 'Pod' || t.info.group !== '') return 0;
  const spec = isObject(obj.spec) ? obj.spec : {};
  const status = isObject(obj.status) ? obj.status : {};
  // Not scheduled, or already terminated: nothing to stop.
  if (!spec.nodeName || status.phase === 'Failed' || status.phase === 'Succeeded') return 0;
  const period =
    opts.gracePeriodSeconds ??
    (typeof spec.terminationGracePeriodSeconds === 'number'
      ? spec.terminationGracePeriodSeconds
      : 0);
  return period < 0 ? 1 : period;
}

/**
 * BeforeDelete's rules for an object being deleted gracefully: the deletion timestamp and grace
 * period to set now (a first graceful delete, or a shorter grace period), `pending` when an
 * earlier graceful delete still holds the object, or neither when it is to go at once.
 */
export function gracefulDeletion(
  old: KubeObject,
  grace: number,
  nowMs: number,
  gracefulStrategy = false,
): { set?: { deletionTimestamp: string; deletionGracePeriodSeconds: number }; pending: boolean } {
  const current = old.metadata.deletionGracePeriodSeconds;
  const marked = old.metadata.deletionTimestamp !== undefined;
  // Marked without a grace period (or with 0): deleted now, as BeforeDelete recovers.
  if (marked && !current) return { pending: false };
  // A kind with a graceful strategy (a Pod) deleted with no grace period is still marked first:
  // BeforeDelete sets the timestamp and a grace period of 0, the store writes that, then deletes.
  if (grace <= 0 && gracefulStrategy && !marked)
    return {
      set: { deletionTimestamp: goTime(nowMs), deletionGracePeriodSeconds: 0 },
      pending: false,
    };
  if (grace <= 0) return { pending: false };
  if (marked && grace >= current!) return { pending: true };
  return {
    set: { deletionTimestamp: goTime(nowMs + grace * 1000), deletionGracePeriodSeconds: grace },
    pending: true,
  };
}

/** metav1.Time as it serializes: RFC 3339 in whole seconds. */
function goTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
