/**
 * The Reconcile Debugger on a finished run (a case of the robustness report): the same panel and
 * state as a live session, from recorded traces instead of a running Manager. It opens at one
 * reconcile (where the case went wrong) and lets the user move along that key's timeline and the
 * run's findings; there is nothing to step. No vscode import: tested in plain Node.
 */
import { emptyDebuggerState, type DebuggerState } from '../../protocol';
import type { Finding } from '../../runtime/findings';
import type { ReconcileTrace } from '../../runtime/trace';
import { firstTraceOf, shownFindings, toFindingView } from './debuggermodel';
import { withCallPhases } from './observedtrace';
import { timelineOf, toReconcileView } from './traceview';

export class RecordedRunModel {
  private shown: ReconcileTrace;
  /** The reconcile the run was opened at, which Restart goes back to. */
  private readonly first: ReconcileTrace;
  private readonly findings: Finding[];
  private readonly traces: ReconcileTrace[];

  /**
   * `title` names the run ("Robustness report, 5xx on status"); `reconcileID` the reconcile to
   * open at (the run's first when absent or unknown). A Go operator's observed traces are shown
   * with their calls as phases.
   */
  constructor(
    traces: ReconcileTrace[],
    findings: Finding[],
    readonly reconciler: string,
    private readonly title: string,
    reconcileID?: string,
  ) {
    if (!traces.length) throw new Error(`${title}: the run has no reconciles to show.`);
    this.traces = traces.map(withCallPhases);
    this.first = this.traces.find((t) => t.reconcileID === reconcileID) ?? this.traces[0];
    this.shown = this.first;
    this.findings = shownFindings(findings);
  }

  /** Shows another reconcile of the run (the timeline's pick). */
  inspect(reconcileID: string): boolean {
    const t = this.traces.find((x) => x.reconcileID === reconcileID);
    if (t) this.shown = t;
    return t !== undefined;
  }

  /** Back to the reconcile the run was opened at (the panel's Restart: there is nothing to re-run). */
  restart(): void {
    this.shown = this.first;
  }

  /** Shows the reconcile a finding's evidence starts with. */
  openFinding(index: number): boolean {
    const f = this.findings[index];
    const t = f && this.traces.find((x) => x.id === firstTraceOf(f));
    if (t) this.shown = t;
    return t !== undefined;
  }

  state(): DebuggerState {
    const t = this.shown;
    const end = this.traces.reduce((m, x) => Math.max(m, x.end ?? x.start), 0);
    return {
      ...emptyDebuggerState(),
      status: 'stopped',
      message: `${this.title}: reconcile #${t.id} of ${t.key}, recorded. Pick another reconcile in the timeline.`,
      reconciler: this.reconciler,
      // The report's runs start at virtual time 0.
      origin: 0,
      now: end,
      current: toReconcileView(t, null),
      history: timelineOf(
        aroundShown(
          this.traces.filter((x) => x.key === t.key),
          t,
        ),
      ),
      breakpoints: { phases: [], outcomes: [] },
      findings: this.findings.map(toFindingView),
    };
  }
}

/** The key's reconciles up to a few past the shown one, so the timeline's window holds it. */
function aroundShown(forKey: ReconcileTrace[], shown: ReconcileTrace): ReconcileTrace[] {
  return forKey.slice(0, Math.max(forKey.indexOf(shown) + 26, 50));
}
