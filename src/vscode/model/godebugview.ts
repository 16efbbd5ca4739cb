/**
 * What the Reconcile Debugger shows for a Go operator under Delve: the phases of the current
 * reconcile (from the stops the Go debugger read) as the same ReconcileView a TypeScript
 * reconcile gets — phases in words, each API call with its code and source, the writes with the
 * cluster's before/after, the Result and the queue's next step.
 */
import type { KubeObject } from '../../cluster/apimachinery/types';
import {
  type ApiCallView,
  type DebuggerState,
  type FindingView,
  type ReconcileView,
  type ResultView,
  type SessionStatus,
  type WriteView,
} from '../../protocol';
import { outcomesAt } from '../../runtime/godebug/holds';
import type { GoPhase } from '../../runtime/godebug/phases';
import type { ReconcileTrace } from '../../runtime/trace';
import { latencySeries, reconcilesPerKey, runningTime } from './chartseries';
import { formatDuration } from './timeformat';
import {
  apiCallView,
  describeNext,
  OUTCOME_OF_RUNTIME,
  timelineOf,
  toReconcileView,
  writeView,
  yamlOf,
} from './traceview';

export interface GoStop {
  phase: GoPhase;
  /** Wall-clock ms the stop was read. */
  at: number;
}

/**
 * The stops of one reconcile, from its dequeue on. `reason` says why it was enqueued (the
 * manager's record: `describeTrigger` of its trace), when known.
 */
export function goReconcileView(
  controller: string,
  stops: GoStop[],
  held: boolean,
  reason?: string,
  reconciled?: Reconciled,
): ReconcileView {
  const first = stops[0];
  const request = stops.find((s) => s.phase.request)?.phase.request ?? { namespace: '', name: '' };
  const calls: ApiCallView[] = [];
  const writes: WriteView[] = [];
  for (const { phase: p } of stops) {
    if (!p.call) continue;
    // Delve's stops name the kind; the views' resource column shows what the call was about.
    const c = { ...p.call, resource: p.call.kind, code: p.call.code ?? 0 };
    calls.push(apiCallView(c, p.phase, p.call.latencyMs ?? 0, p.call.fault, p.call.webhooks));
    if (p.phase === 'write' || p.phase === 'status')
      writes.push(
        writeView(
          c,
          p.call.before as KubeObject | undefined,
          p.call.after as KubeObject | undefined,
        ),
      );
  }
  const last = stops[stops.length - 1];
  const ended = stops.find((s) => s.phase.result);
  return {
    // controller-runtime's own UUID, read at the dequeue stop (reconcileHandler has just made it).
    id: reconcileIdOf(stops),
    controller,
    request,
    reason: reason ?? 'enqueued',
    start: first?.at ?? 0,
    end: ended?.at ?? null,
    phases: stops.map((s) => ({ phase: s.phase.phase, at: s.at, detail: s.phase.summary })),
    heldAt: held && last ? last.phase.phase : null,
    calls,
    writes,
    ...primaryObjects(stops, reconciled),
    result: ended ? resultView(ended.phase) : null,
    outcomes: [
      ...new Set(stops.flatMap((s) => outcomesAt(s.phase).map((o) => OUTCOME_OF_RUNTIME[o]))),
    ],
    // The user's line of the latest stop that has one (dequeue and result run in
    // controller-runtime only: their line is the Reconcile method's).
    location: [...stops].reverse().find((s) => s.phase.location)?.phase.location,
  };
}

/** The reconciled object's kind and key, and the object as the cluster holds it now. */
export interface Reconciled {
  kind: string;
  namespace: string;
  name: string;
  current?: KubeObject;
}

/**
 * The reconciled object as Reconcile first read it (or as its first write found it) and as it is
 * now: after the reconcile's last write of it, else the cluster's copy, else as read. The same
 * choice the TypeScript path makes (traceview.ts).
 */
function primaryObjects(
  stops: GoStop[],
  reconciled: Reconciled | undefined,
): { objectBefore: string; objectAfter: string } {
  let before: KubeObject | undefined;
  let after: KubeObject | undefined;
  for (const { phase: p } of stops) {
    const c = p.call;
    if (!c || !reconciled || c.kind !== reconciled.kind) continue;
    if (c.namespace !== reconciled.namespace || c.name !== reconciled.name) continue;
    if (p.phase === 'read') before ??= c.after as KubeObject | undefined;
    if (p.phase === 'write' || p.phase === 'status') {
      before ??= c.before as KubeObject | undefined;
      if (c.after) after = c.after as KubeObject;
    }
  }
  const now = reconciled?.current;
  return { objectBefore: yamlOf(before ?? now), objectAfter: yamlOf(after ?? now ?? before) };
}

/**
 * The reconciled object's Go kind and key at these stops: the controller's kind where the
 * manager's logs said it (`controllerKind`), else the kind of the first read of the request's key
 * (Reconcile reads its object first; a child may share the name, not usually the first read).
 */
export function reconciledKeyOf(
  stops: GoStop[],
  kind?: string,
): Omit<Reconciled, 'current'> | undefined {
  const request = stops.find((s) => s.phase.request)?.phase.request;
  if (!request) return undefined;
  const read = stops.find(
    (s) =>
      s.phase.phase === 'read' &&
      s.phase.call?.namespace === request.namespace &&
      s.phase.call.name === request.name,
  )?.phase.call;
  const k = kind || read?.kind;
  return k ? { kind: k, ...request } : undefined;
}

/** The reconcileID of a reconcile's stops: the first stop in reconcileHandler that read it. */
export function reconcileIdOf(stops: GoStop[]): string {
  return stops.find((s) => s.phase.reconcileID)?.phase.reconcileID ?? '';
}

/** controller-runtime's name of the stepped controller, as its stops read it. */
export function controllerOf(stops: GoStop[]): string | undefined {
  return stops.find((s) => s.phase.controller)?.phase.controller;
}

function resultView(p: GoPhase): ResultView {
  const r = p.result!;
  const returned = r.error
    ? `error: ${r.error}`
    : r.requeueAfterMs > 0
      ? `{ RequeueAfter: ${formatDuration(r.requeueAfterMs)} }`
      : r.requeue
        ? '{ Requeue: true }'
        : '{}';
  return {
    returned,
    error: r.error,
    next: describeNext(p.next),
    nextAt: null,
    delayMs: p.next?.delayMs ?? null,
  };
}

/**
 * The panel's whole state for a Go session: the reconcile being stepped (or a finished one the
 * user picked in the timeline), that key's timeline from the manager's own record of its
 * reconciles, the findings, the breakpoints, and the charts (queue depth sampled at each stop
 * and reconcile end; latency and reconciles per key from that record).
 */
export function goDebuggerState(opts: {
  status: SessionStatus;
  message: string;
  reconciler: string | null;
  origin: number;
  stops: GoStop[];
  held: boolean;
  /** The manager's finished reconciles (ObservedManager, from its logs and the audit record). */
  traces: ReconcileTrace[];
  inspected?: string;
  breakpoints: DebuggerState['breakpoints'];
  findings: FindingView[];
  /** The held call "Fail the next call with…" would target (godebugfaults.ts), described. */
  faultTarget?: string;
  /** Queue depth as sampled at each stop and each reconcile's end ([wall ms, requests]). */
  depth: Array<[number, number]>;
  /** When the process was stopped in Delve ([from, to] wall ms), left out of the latencies and the running time. */
  holds: Array<[number, number]>;
  /** When the process stopped, while it stands stopped (wall ms). */
  stoppedSince?: number;
  /** The wall clock now (ms). */
  now?: number;
  /** Why the stepped reconcile was enqueued, in words (from the manager's record). */
  reason?: string;
  /** The reconciled object's kind and key, and its copy in the cluster where that is in this process. */
  reconciled?: Reconciled;
}): DebuggerState {
  const stepped = opts.stops.length
    ? goReconcileView(
        controllerOf(opts.stops) ?? opts.reconciler ?? 'go',
        opts.stops,
        opts.held,
        opts.reason,
        opts.reconciled,
      )
    : null;
  const picked = opts.traces.find((t) => t.reconcileID === opts.inspected);
  const current =
    picked && picked.reconcileID !== stepped?.id
      ? toReconcileView(picked, null, undefined, opts.origin)
      : stepped;
  const key = current && `${current.request.namespace}/${current.request.name}`;
  const now = opts.now ?? Date.now();
  const run = runningTime(opts.origin, [
    ...opts.holds,
    ...(opts.stoppedSince !== undefined ? [[opts.stoppedSince, Infinity] as [number, number]] : []),
  ]);
  const runOf = (t: ReconcileTrace) => run(t.end ?? t.start);
  return {
    status: opts.status,
    message: opts.message,
    reconciler: opts.reconciler,
    origin: opts.origin,
    now,
    current,
    history: timelineOf(opts.traces.filter((t) => t.key === key)),
    breakpoints: opts.breakpoints,
    charts: {
      runMs: run(now),
      queueDepth: opts.depth.map(([at, depth]) => [at, depth, run(at)]),
      latencyMs: latencySeries(opts.traces, runOf, opts.holds),
      reconcilesPerKey: reconcilesPerKey(opts.traces, runOf),
    },
    findings: opts.findings,
    ...(opts.faultTarget ? { faultTarget: opts.faultTarget } : {}),
  };
}
