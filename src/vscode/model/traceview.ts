/**
 * Turns the runtime's ReconcileTrace into what the Reconcile Debugger shows (protocol.ts): the
 * phases in words, each API call with the phase it belongs to, the writes as before/after YAML,
 * the Result and what the queue will do next with the exact time.
 */
import { stringify } from 'yaml';
import type { KubeObject } from '../../cluster/apimachinery/types';
import type {
  ApiCallView,
  Outcome,
  Phase,
  ReconcileSummary,
  ReconcileView,
  ResultView,
  WriteView,
} from '../../protocol';
import type { OutcomeBreak } from '../../runtime/stepper';
import { phaseSummary } from '../../runtime/phasesummary';
import type { NextAction, ReconcileTrace, Trigger } from '../../runtime/trace';
import { formatDuration, formatOffset } from './timeformat';
import { describeWaitReason } from './waitreason';
import { webhookCallViews } from './webhookcalls';
import type { WebhookCallRecord } from '../../cluster/admission/webhook/callrecord';

export function yamlOf(obj: KubeObject | undefined): string {
  if (!obj) return '';
  const copy = structuredClone(obj);
  delete copy.metadata.managedFields;
  return stringify(copy, { lineWidth: 0 });
}

/** What the API calls pane and the write diffs need of one call, whoever recorded it. */
type CallRecord = Pick<
  ApiCallView,
  'verb' | 'resource' | 'namespace' | 'name' | 'subresource' | 'code' | 'message' | 'source'
>;

export function apiCallView(
  c: CallRecord,
  phase: Phase,
  latencyMs: number,
  fault?: string,
  webhooks?: WebhookCallRecord[],
): ApiCallView {
  return {
    verb: c.verb,
    resource: c.resource,
    namespace: c.namespace || undefined,
    name: c.name || undefined,
    subresource: c.subresource || undefined,
    code: c.code,
    message: c.message,
    source: c.source,
    latencyMs,
    phase,
    ...(fault !== undefined ? { fault } : {}),
    ...webhookCallViews(webhooks),
  };
}

export function writeView(
  c: CallRecord,
  before: KubeObject | undefined,
  after: KubeObject | undefined,
): WriteView {
  return {
    verb: c.verb,
    resource: c.resource,
    name: c.name || undefined,
    subresource: c.subresource || undefined,
    code: c.code,
    before: yamlOf(before),
    after: yamlOf(after),
  };
}

export function describeTrigger(t: Trigger | undefined): string {
  if (!t) return 'enqueued';
  switch (t.kind) {
    case 'event': {
      const c = t.cause;
      if (!c) return 'a watch event';
      const obj = `${c.object.kind} ${c.object.namespace ? c.object.namespace + '/' : ''}${c.object.name}`;
      const via =
        c.handler === 'owns'
          ? ' (owned object)'
          : c.handler === 'watches'
            ? ' (watched object)'
            : '';
      const self = t.selfTriggered ? ' — caused by this controller\u2019s own write' : '';
      return `${c.event} of ${obj}${via}${self}`;
    }
    case 'requeueAfter':
      return 'requeueAfter elapsed';
    case 'backoff':
      return 'retry after an error (backoff)';
    case 'rate-limit':
      return 'rate-limited requeue';
    case 'requeue':
      return 'Result.requeue';
  }
}

export function describeNext(next: NextAction | undefined): string {
  if (!next) return 'not decided yet';
  switch (next.action) {
    case 'forget':
      return 'forget the request (done until the next event)';
    case 'requeueAfter':
      return `requeue after ${formatDuration(next.delayMs ?? 0)} (requeueAfter)`;
    case 'rateLimited': {
      const why = next.reason ? describeWaitReason(next.reason) : 'rate limit';
      return `rate-limited requeue in ${formatDuration(next.delayMs ?? 0)} (${why})`;
    }
    case 'none':
      return 'drop the request (terminal error: no retry)';
  }
}

function describeReturned(trace: ReconcileTrace): string {
  if (trace.error) return `error: ${trace.error.message}`;
  const r = trace.result;
  if (!r || (!r.requeue && !r.requeueAfter)) return '{}';
  const parts: string[] = [];
  if (r.requeue) parts.push('requeue: true');
  if (r.requeueAfter) parts.push(`requeueAfter: ${formatDuration(r.requeueAfter)}`);
  return `{ ${parts.join(', ')} }`;
}

export function resultView(trace: ReconcileTrace): ResultView | null {
  if (trace.end === undefined && !trace.next) return null;
  const next = trace.next;
  const nextAt =
    next && next.action !== 'forget' && next.action !== 'none' ? (next.at ?? null) : null;
  return {
    returned: describeReturned(trace),
    error: trace.error
      ? `${trace.error.message}${trace.error.location ? ` (at ${trace.error.location})` : ''}`
      : null,
    next: describeNext(next),
    nextAt,
    delayMs: nextAt !== null ? (next?.delayMs ?? null) : null,
  };
}

/** The panel's outcome names and the runtime stepper's. */
export const OUTCOME_TO_RUNTIME: Record<Outcome, OutcomeBreak> = {
  conflict: 'Conflict',
  forbidden: 'Forbidden',
  notFound: 'NotFound',
  error: 'error',
  requeue: 'requeue',
};
export const OUTCOME_OF_RUNTIME = Object.fromEntries(
  Object.entries(OUTCOME_TO_RUNTIME).map(([k, v]) => [v, k]),
) as Record<OutcomeBreak, Outcome>;

export function outcomesOf(trace: ReconcileTrace): Outcome[] {
  const out = new Set<Outcome>();
  for (const c of trace.calls) {
    if (c.reason === 'Conflict') out.add('conflict');
    if (c.reason === 'Forbidden') out.add('forbidden');
    if (c.reason === 'NotFound') out.add('notFound');
  }
  if (trace.error) out.add('error');
  if (trace.result?.requeue || trace.result?.requeueAfter) out.add('requeue');
  return [...out];
}

/** The trace as the debugger shows it. `heldAt` is the phase the stepper holds it at, if any. */
export function toReconcileView(
  trace: ReconcileTrace,
  heldAt: Phase | null,
  current?: KubeObject,
  origin = 0,
): ReconcileView {
  const calls: ApiCallView[] = [];
  const writes: WriteView[] = [];
  let objectBefore: KubeObject | undefined;
  let objectAfter: KubeObject | undefined;
  const isPrimary = (o: KubeObject | undefined) =>
    !!o &&
    o.metadata.name === trace.request.name &&
    (o.metadata.namespace ?? '') === trace.request.namespace &&
    !o.metadata.ownerReferences?.some((r) => r.controller);
  for (const p of trace.phases) {
    if (p.call && p.phase !== 'diff') {
      calls.push(apiCallView(p.call, p.phase, p.call.wallMs ?? 0, p.call.fault, p.call.webhooks));
    }
    if ((p.phase === 'write' || p.phase === 'status') && p.call) {
      writes.push(writeView(p.call, p.before, p.after));
      if (p.call.kind === kindOfPrimary(trace) && p.call.name === trace.request.name) {
        objectBefore ??= p.before;
        if (p.after) objectAfter = p.after;
      }
    }
    if (p.phase === 'read' && isPrimary(p.after)) objectBefore ??= p.after;
  }
  return {
    id: trace.reconcileID,
    controller: trace.controller,
    request: { namespace: trace.request.namespace, name: trace.request.name },
    reason: describeTrigger(trace.triggers[0]),
    start: trace.start,
    end: trace.end ?? null,
    phases: trace.phases.map((p) => ({
      phase: p.phase,
      at: p.at,
      detail: relativeTimes(phaseSummary(p, trace), origin),
    })),
    heldAt,
    calls,
    writes,
    objectBefore: yamlOf(objectBefore ?? current),
    objectAfter: yamlOf(objectAfter ?? current ?? objectBefore),
    result: resultView(trace),
    outcomes: outcomesOf(trace),
  };
}

/** The reconciled kind: the kind of the first Get of the request's own key. */
function kindOfPrimary(trace: ReconcileTrace): string | undefined {
  return trace.calls.find(
    (c) =>
      c.verb === 'get' && c.name === trace.request.name && c.namespace === trace.request.namespace,
  )?.kind;
}

/** The timeline of one key's reconciles (its latest 50), oldest first. */
export function timelineOf(forKey: ReconcileTrace[]): ReconcileSummary[] {
  return forKey.slice(-50).map((t) => {
    const faults = [...new Set(t.calls.flatMap((c) => (c.fault !== undefined ? [c.fault] : [])))];
    return {
      id: t.reconcileID,
      start: t.start,
      end: t.end ?? null,
      outcome: summarizeOutcome(t),
      ...(faults.length ? { faults } : {}),
    };
  });
}

export function summarizeOutcome(trace: ReconcileTrace): string {
  if (trace.end === undefined) return 'running';
  if (trace.error) return `error: ${trace.error.reason ?? trace.error.message}`.slice(0, 80);
  return `${describeReturned(trace)} → ${describeNext(trace.next)}`.slice(0, 100);
}

/** The runtime's summaries name absolute clock times ("at t=1796032761207"); show them from the session's start. */
export function relativeTimes(text: string, origin: number): string {
  if (!origin) return text;
  return text.replace(/\bt=(\d+(?:\.\d+)?)/g, (_m, n: string) => formatOffset(Number(n), origin));
}
