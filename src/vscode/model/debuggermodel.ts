/**
 * The Reconcile Debugger's state, computed from a running Manager: which reconcile is shown (the
 * held one, or the one the user picked in the timeline), this key's history, findings, and the
 * queue-depth and latency series for the charts, each point at the session's running time
 * (wall-clock time since it started, holds left out). No vscode import: tested in plain Node.
 */
import type { FaultRule } from '../../cluster/faults';
import type { KubeObject, TypeRef } from '../../cluster/apimachinery/types';
import {
  emptyDebuggerState,
  type ChartPoint,
  type DebuggerFault,
  type DebuggerState,
  type FindingView,
  type Outcome,
  type Phase,
  type SessionStatus,
} from '../../protocol';
import { analyze, type ClusterEvent, type Finding } from '../../runtime/findings';
import type { Manager } from '../../runtime/manager';
import type { HeldState } from '../../runtime/stepper';
import type { ApiCall, ReconcileTrace } from '../../runtime/trace';
import { DEBUGGER_FAULT_LABELS, describeCall, faultRuleFor } from './debuggerfaults';
import { describeEvidence } from './findingevidence';
import { MAX_POINTS, pushPoint, reconcilesPerKey } from './chartseries';
import { OUTCOME_TO_RUNTIME, timelineOf, toReconcileView } from './traceview';

/** What the debugger reads of the cluster besides the traces: its Events, for findings. */
export interface EventSource {
  clusterEvents(): ClusterEvent[];
}

/** The in-process cluster's Events. (A remote cluster's Events are not read: findings that need them are in-process only.) */
export function eventsOf(cluster: { list(type: TypeRef): { items: KubeObject[] } }): EventSource {
  return {
    clusterEvents: () =>
      cluster.list({ apiVersion: 'v1', kind: 'Event' }).items as unknown as ClusterEvent[],
  };
}

export const NO_EVENTS: EventSource = { clusterEvents: () => [] };

/** Reconciles whose running time is remembered: more than the charts show of each busy key. */
const MAX_RUNS = 10 * MAX_POINTS;

export class DebuggerModel {
  status: SessionStatus = 'starting';
  message = 'Starting…';
  private held: HeldState | undefined;
  /** The reconcile the user picked in the timeline; otherwise the latest of the focused key. */
  private inspected: string | undefined;
  private focusKey: string | undefined;
  private readonly depth: ChartPoint[] = [];
  private readonly latency: ChartPoint[] = [];
  /**
   * Wall-clock time each running reconcile has used, holds excluded. On the virtual clock every
   * in-process call takes no time, so the latency chart measures what the reconciler really costs
   * (its worker round trips and the API calls), not how long the user looked at a held phase.
   */
  private readonly wall = new Map<number, { started: number; held: number }>();
  private heldSince: number | undefined;
  /** Wall-clock time held in the debugger before the current hold, left out of the running time. */
  private heldTotal = 0;
  private readonly wallOrigin: number;
  /**
   * The running time of each recent reconcile's point (its start, then its end), which the
   * charts plot: on the virtual clock a hot loop's reconciles share one instant of controller
   * time, but not of running time.
   */
  private readonly runs = new Map<number, number>();
  private findings: FindingView[] = [];
  /** The first trace each shown finding points at, so the banner can open its evidence. */
  private findingTraces: Array<number | undefined> = [];
  private breakpoints: DebuggerState['breakpoints'] = { phases: [], outcomes: [] };
  /** The embedded cluster's fault injector; absent for a remote cluster (nothing to inject into). */
  private faults: { inject(rule: FaultRule): void } | undefined;
  private faultsInjected = 0;
  /** The hold a fault was injected at: one fault per held call. */
  private faultedHold: HeldState | undefined;

  constructor(
    private readonly manager: Manager,
    private readonly cluster: EventSource,
    private readonly forType: TypeRef,
    readonly reconciler: string,
    private readonly origin = manager.clock.now(),
    private readonly wallNow: () => number = () => performance.now(),
  ) {
    this.wallOrigin = wallNow();
  }

  /** The session's running time now (ms): wall-clock time since it started, time held left out. */
  runNow(): number {
    const now = this.wallNow();
    const holding = this.heldSince !== undefined ? now - this.heldSince : 0;
    return Math.max(0, now - this.wallOrigin - this.heldTotal - holding);
  }

  setBreakpoints(phases: Phase[], outcomes: Outcome[]): void {
    this.breakpoints = { phases: [...phases], outcomes: [...outcomes] };
    this.manager.stepper?.setBreakpoints({
      phases,
      outcomes: outcomes.map((o) => OUTCOME_TO_RUNTIME[o]),
    });
  }

  /** Lets "Fail the next call with…" add rules to the cluster's injector. */
  useFaults(faults: { inject(rule: FaultRule): void }): void {
    this.faults = faults;
  }

  /**
   * The held call a fault can be made for: a write or status write held before it runs. A read
   * is answered by the informer cache, which server faults do not reach (as in controller-runtime).
   */
  private faultableCall(): ApiCall | undefined {
    const h = this.held;
    if (!this.faults || !h || h.when !== 'enter' || h === this.faultedHold) return undefined;
    if (h.phase.phase !== 'write' && h.phase.phase !== 'status') return undefined;
    return h.phase.call;
  }

  /** Makes the held call fail with `fault` (or answer late) when the user steps on. */
  injectFault(fault: DebuggerFault): void {
    const call = this.faultableCall();
    if (!call)
      throw new Error(
        'A fault can be injected only while held before a write or status write of a TypeScript reconciler on the embedded cluster.',
      );
    this.faults!.inject(faultRuleFor(call, fault, ++this.faultsInjected));
    this.faultedHold = this.held;
    this.message = `${describeCall(call)} will ${fault === 'delay' ? 'be answered late' : `fail with ${DEBUGGER_FAULT_LABELS[fault]}`}: Step to see what the reconciler does`;
  }

  onReconcileStart(t: ReconcileTrace): void {
    this.wall.set(t.id, { started: this.wallNow(), held: 0 });
    this.runs.set(t.id, this.runNow());
  }

  onHeld(h: HeldState): void {
    this.heldSince ??= this.wallNow();
    this.held = h;
    this.focusKey = h.trace.key;
    this.inspected = undefined;
    this.status = 'held';
    const why = h.reason === 'breakpoint' ? 'breakpoint' : h.reason === 'step' ? 'step' : 'paused';
    this.message = `Held at ${h.phase.phase} of ${h.trace.key} (${why}, ${h.when === 'enter' ? 'before' : 'after'} it runs)`;
  }

  onResumed(): void {
    if (this.heldSince !== undefined) {
      const pause = this.wallNow() - this.heldSince;
      for (const w of this.wall.values()) w.held += pause;
      this.heldTotal += pause;
      this.heldSince = undefined;
    }
    this.held = undefined;
    this.status = 'running';
    this.message = 'Running';
  }

  onQueueChange(now: number, depth: number): void {
    pushPoint(this.depth, [now, depth, this.runNow()]);
  }

  onReconcileEnd(t: ReconcileTrace): void {
    const w = this.wall.get(t.id);
    this.wall.delete(t.id);
    const run = this.runNow();
    if (t.end !== undefined && w)
      pushPoint(this.latency, [t.end, Math.max(0, this.wallNow() - w.started - w.held), run]);
    // Set again to move it last: the oldest entries go first past the bound.
    this.runs.delete(t.id);
    this.runs.set(t.id, run);
    for (const id of this.runs.keys()) {
      if (this.runs.size <= MAX_RUNS) break;
      this.runs.delete(id);
    }
    this.focusKey ??= t.key;
  }

  inspect(id: string): boolean {
    if (!this.manager.traces().some((t) => t.reconcileID === id)) return false;
    this.inspected = id;
    return true;
  }

  /** Shows the reconcile a finding's evidence starts with (or that key's latest reconcile). */
  openFinding(index: number): boolean {
    const f = this.findings[index];
    if (!f) return false;
    const traceId = this.findingTraces[index];
    const trace = this.manager.traces().find((t) => t.id === traceId);
    if (trace) {
      this.inspected = trace.reconcileID;
      this.focusKey = trace.key;
      return true;
    }
    if (f.request) {
      this.focusKey = `${f.request.namespace}/${f.request.name}`;
      this.inspected = undefined;
    }
    return true;
  }

  fail(message: string): void {
    this.status = 'error';
    this.message = message;
  }

  /** Recomputes findings from the traces and the cluster's Events (cheap at debugger scale). */
  refreshFindings(durationMs: number): Finding[] {
    const controller = this.manager.controllers[0];
    if (!controller) return [];
    const events = this.cluster.clusterEvents();
    const all = analyze({
      controller,
      forType: this.forType,
      api: this.manager.api,
      events,
      durationMs,
    });
    const shown = shownFindings(all);
    this.findingTraces = shown.map(firstTraceOf);
    this.findings = shown.map((f) => toFindingView(f, this.origin));
    return shown;
  }

  state(): DebuggerState {
    const traces = this.manager.traces();
    const heldTrace = this.held?.trace;
    const key = heldTrace?.key ?? this.focusKey;
    const forKey = key ? traces.filter((t) => t.key === key) : [];
    let shown: ReconcileTrace | undefined = this.inspected
      ? traces.find((t) => t.reconcileID === this.inspected)
      : undefined;
    if (!shown && heldTrace) shown = heldTrace;
    shown ??= forKey[forKey.length - 1];
    const heldAt =
      heldTrace && shown && heldTrace.reconcileID === shown.reconcileID
        ? this.held!.phase.phase
        : null;
    return {
      ...emptyDebuggerState(),
      status: this.status,
      message: this.message,
      reconciler: this.reconciler,
      origin: this.origin,
      now: this.manager.clock.now(),
      current: shown
        ? toReconcileView(shown, heldAt, this.currentObject(shown), this.origin)
        : null,
      history: timelineOf(forKey),
      breakpoints: this.breakpoints,
      charts: {
        runMs: this.runNow(),
        queueDepth: [...this.depth],
        latencyMs: [...this.latency],
        // A trace this model did not see start (none, in a session it follows from the start)
        // is put at the present.
        reconcilesPerKey: reconcilesPerKey(traces, (t) => this.runs.get(t.id) ?? this.runNow()),
      },
      findings: this.findings,
      ...(this.faultableCall() ? { faultTarget: describeCall(this.faultableCall()!) } : {}),
    };
  }

  /** The reconciled object as the controller's cache holds it now (no API call). */
  private currentObject(t: ReconcileTrace): KubeObject | undefined {
    const key = { namespace: t.request.namespace || undefined, name: t.request.name };
    return this.manager.cache.peekIfWatched(this.forType, key) ?? undefined;
  }
}

/** The findings the panel shows: a bottleneck is the charts' story, not a banner's. */
export function shownFindings(all: Finding[]): Finding[] {
  return all.filter((f) => f.kind !== 'bottleneck');
}

/** The trace a finding's evidence starts with (the banner's "Show the reconcile"). */
export function firstTraceOf(f: Finding): number | undefined {
  return (f.evidence.traceIds as number[] | undefined)?.[0];
}

/** A finding as the banner shows it: its evidence in sentences, times from `origin` (the session's start). */
export function toFindingView(f: Finding, origin: number): FindingView {
  return {
    kind: f.kind,
    message: f.message,
    request: f.request,
    evidence: describeEvidence(f, origin),
  };
}
