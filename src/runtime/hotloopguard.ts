/**
 * The controller's hot-loop guard (not in controller-runtime): after every reconcile the key's
 * passes are counted (hotloop.ts); a hot loop is reported and, unless the options say only to
 * report, the key is suspended — its adds are dropped — until the user resumes it.
 */
import { HotLoopDetector, type HotLoopOptions, type HotLoopReport } from './hotloop';
import type { ReconcileTrace } from './trace';

export class HotLoopGuard {
  /** Every hot loop found, oldest first. */
  readonly reports: HotLoopReport[] = [];
  private readonly suspended = new Set<string>();
  private readonly detector: HotLoopDetector;

  constructor(opts?: HotLoopOptions) {
    this.detector = new HotLoopDetector(opts);
  }

  isSuspended(key: string): boolean {
    // Asked three times per reconcile; nothing is suspended almost always.
    return this.suspended.size > 0 && this.suspended.has(key);
  }

  suspend(key: string): void {
    this.suspended.add(key);
  }

  /** Lifts the suspension and counts the key afresh. */
  resume(key: string): void {
    this.suspended.delete(key);
    this.detector.reset(key);
  }

  suspendedKeys(): string[] {
    return [...this.suspended];
  }

  /** Counts a finished reconcile; its report (the key then suspended, when pausing) if it makes a hot loop. */
  observe(key: string, trace: ReconcileTrace, now: number): HotLoopReport | undefined {
    const report = this.detector.observe(key, trace, now);
    if (!report) return undefined;
    this.reports.push(report);
    if (report.suspended) this.suspend(key);
    return report;
  }
}
