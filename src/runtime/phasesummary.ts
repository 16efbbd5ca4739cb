/**
 * A phase record in words ("Get WebApp default/shop (cache) → 200"), for the debugger's timeline.
 * Built when read, from what the record and its trace hold: a bulk run records tens of thousands
 * of phases whose words nobody reads, and building them as the phases happened cost a tenth of
 * its time. A record made without that structure (an observed reconcile, a Go stop) carries its
 * own `summary`, which wins.
 */
import type { ApiCall, NextAction, PhaseRecord, ReconcileTrace, Trigger } from './trace';

export function phaseSummary(rec: PhaseRecord, trace: ReconcileTrace): string {
  if (rec.summary !== undefined) return rec.summary;
  switch (rec.phase) {
    case 'enqueue':
      return describeTriggers(rec.triggers ?? trace.triggers);
    case 'dequeue':
      return `worker ${trace.worker} took ${trace.key}${rec.queueWaitMs !== undefined ? ` after ${rec.queueWaitMs} ms in the queue` : ''}`;
    case 'reconcile':
      return `Reconcile ${trace.key} (reconcileID ${trace.reconcileID})`;
    case 'result':
      return rec.next ? describeResult(trace, rec.next) : 'result';
    case 'diff':
      return rec.call
        ? `${describeWrite(rec.call)}: ${rec.diff?.length ?? 0} change${rec.diff?.length === 1 ? '' : 's'}`
        : 'diff';
    default:
      return rec.call ? describeCall(rec.call) : rec.phase;
  }
}

/** A call and, once answered, its code: what the read, write and status phases say. */
function describeCall(c: ApiCall): string {
  const what =
    c.verb === 'get'
      ? `Get ${c.kind} ${keyOf(c)} (cache)`
      : c.verb === 'list'
        ? `List ${c.kind}${c.namespace ? ` in ${c.namespace}` : ' (all namespaces)'}${c.selector ? ` [${c.selector}]` : ''} (cache)`
        : describeWrite(c);
  if (!c.code) return what;
  if (c.verb === 'list' && c.items !== undefined) return `${what} → ${c.code} (${c.items} items)`;
  return `${what} → ${c.code}${c.reason ? ` ${c.reason}` : ''}${c.noop ? ' (no-op)' : ''}${c.fault !== undefined ? ` [fault ${c.fault}]` : ''}`;
}

function describeWrite(c: ApiCall): string {
  return `${c.verb[0].toUpperCase()}${c.verb.slice(1)}${c.subresource ? ` ${c.subresource}` : ''} ${c.kind} ${keyOf(c)}`;
}

function keyOf(c: ApiCall): string {
  return c.namespace ? `${c.namespace}/${c.name}` : c.name;
}

function describeTriggers(ts: Trigger[]): string {
  if (!ts.length) return 'queued';
  const parts = ts.slice(0, 3).map((t) => {
    if (t.kind !== 'event' || !t.cause)
      return `${t.kind}${t.fromReconcile ? ` (from reconcile #${t.fromReconcile})` : ''}`;
    const o = t.cause.object;
    const who = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
    const via =
      t.cause.handler === 'owns' ? ' (owned)' : t.cause.handler === 'watches' ? ' (mapped)' : '';
    return `${t.cause.event} ${who}${via}${t.selfTriggered ? ' ← own write' : ''}`;
  });
  return parts.join('; ') + (ts.length > 3 ? `; +${ts.length - 3} more` : '');
}

function describeResult(trace: ReconcileTrace, next: NextAction): string {
  const r = trace.error
    ? `error: ${trace.error.message}`
    : trace.result?.requeueAfter
      ? `requeueAfter ${trace.result.requeueAfter} ms`
      : trace.result?.requeue
        ? 'requeue'
        : 'done';
  switch (next.action) {
    case 'forget':
      return `${r} → forget`;
    case 'none':
      return `${r} → not requeued (terminal)`;
    case 'requeueAfter':
      return `${r} → forget + addAfter ${next.delayMs} ms (at t=${next.at})`;
    case 'rateLimited':
      return `${r} → addRateLimited: ${next.delayMs} ms (${next.reason?.kind}${next.reason?.attempt ? ` ${next.reason.attempt}` : ''}, at t=${next.at})`;
  }
}
