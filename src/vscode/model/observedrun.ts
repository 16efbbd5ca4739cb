/**
 * The Reconcile Debugger on a Go operator Run Go Operator runs (no Delve): the manager's
 * reconciles as the cluster's audit record and its logs showed them (runtime/observedcontroller.ts),
 * live — the newest finished reconcile until the user picks one in the timeline or a finding,
 * with its API calls (and the webhook calls each write made), the key's timeline, findings and
 * charts. Nothing holds: Debug Go Operator is the one that steps. No vscode import: tested in
 * plain Node.
 */
import { emptyDebuggerState, type DebuggerState } from '../../protocol';
import type { Finding } from '../../runtime/findings';
import type { ReconcileTrace } from '../../runtime/trace';
import { latencySeries, reconcilesPerKey, runningTime } from './chartseries';
import { firstTraceOf, shownFindings, toFindingView } from './debuggermodel';
import { withCallPhases } from './observedtrace';
import { timelineOf, toReconcileView } from './traceview';

export interface ObservedRun {
  /** The manager's finished reconciles, oldest first. */
  traces(): ReconcileTrace[];
  findings(): Finding[];
  /** Whether the manager still runs. */
  running(): boolean;
}

export class ObservedRunModel {
  /** The reconcile the user picked; none: the newest is shown. */
  private picked: string | undefined;
  private note = '';

  constructor(
    private readonly run: ObservedRun,
    readonly reconciler: string,
    /** When the manager started (wall ms): times are shown from then. */
    private readonly origin: number,
  ) {}

  /** Shows a reconcile of the timeline, and keeps showing it. */
  inspect(reconcileID: string): boolean {
    if (!this.run.traces().some((t) => t.reconcileID === reconcileID)) return false;
    this.picked = reconcileID;
    return true;
  }

  /** Back to following the newest reconcile (the panel's Restart: there is nothing to re-run). */
  restart(): void {
    this.picked = undefined;
    this.note = '';
  }

  /** Shows the reconcile a finding's evidence starts with. */
  openFinding(index: number): boolean {
    const f = shownFindings(this.run.findings())[index];
    const t = f && this.run.traces().find((x) => x.id === firstTraceOf(f));
    if (t) this.picked = t.reconcileID;
    return t !== undefined;
  }

  /** Step, Continue and Pause have nothing to act on: says which command does. */
  cannotHold(): void {
    this.note = ' Run Go Operator does not hold reconciles: Debug Go Operator steps through them.';
  }

  state(): DebuggerState {
    const traces = this.run.traces();
    const running = this.run.running();
    const picked = this.picked && traces.find((t) => t.reconcileID === this.picked);
    const shown = picked || traces.at(-1);
    // Nothing holds: the running time is the wall clock's since the manager started.
    const run = runningTime(this.origin, []);
    const runOf = (t: { start: number; end?: number }) => run(t.end ?? t.start);
    const now = Date.now();
    const base = {
      ...emptyDebuggerState(),
      status: running ? ('running' as const) : ('stopped' as const),
      reconciler: this.reconciler,
      origin: this.origin,
      now,
      breakpoints: { phases: [], outcomes: [] },
      findings: shownFindings(this.run.findings()).map((f) => toFindingView(f, this.origin)),
      charts: {
        runMs: run(now),
        queueDepth: [],
        latencyMs: latencySeries(traces, runOf),
        reconcilesPerKey: reconcilesPerKey(traces, runOf),
      },
    };
    const who = `Go operator ${this.reconciler}${running ? '' : ' (stopped)'}`;
    if (!shown) return { ...base, message: `${who}: no reconcile has finished yet.${this.note}` };
    const which = picked
      ? 'picked in the timeline (Restart follows the newest again)'
      : 'the newest (pick one in the timeline to keep it)';
    return {
      ...base,
      message: `${who}: reconcile of ${shown.key}, ${which}.${this.note}`,
      current: toReconcileView(withCallPhases(shown), null, undefined, this.origin),
      history: timelineOf(traces.filter((t) => t.key === shown.key)),
    };
  }
}
