/**
 * Hot-loop detection: a key reconciled again and again because each pass writes something that
 * triggers the next (seed §3.7), or simply reconciled too often. Shared by the runtime's own
 * controllers and by a Go manager observed from outside (its logs and the cluster's audit log).
 */
import type { ReconcileTrace } from './trace';

export interface HotLoopOptions {
  /** Consecutive self-triggered reconciles (each with a real write) that make a hot loop. */
  threshold?: number;
  /** Reconciles of one key within one second of clock time that make a hot loop. */
  maxPerSecond?: number;
  /** pause: stop processing the key until resume(key); report: only report. */
  action?: 'pause' | 'report';
}

export interface HotLoopReport {
  key: string;
  at: number;
  reconciles: number;
  reason: 'self-triggered' | 'rate';
  traceIds: number[];
  suspended: boolean;
}

interface Stats {
  selfCount: number;
  times: number[];
  ids: number[];
}

export class HotLoopDetector {
  private readonly stats = new Map<string, Stats>();

  constructor(private readonly opts: HotLoopOptions = {}) {}

  get pauses(): boolean {
    return (this.opts.action ?? 'pause') === 'pause';
  }

  /** Counts a finished reconcile of `key` at clock time `now`; a report when it makes a hot loop. */
  observe(key: string, trace: ReconcileTrace, now: number): HotLoopReport | undefined {
    const threshold = this.opts.threshold ?? 20;
    const maxPerSecond = this.opts.maxPerSecond ?? 100;
    let s = this.stats.get(key);
    // Kept per key for the whole run: lists made with their first element are sized to it (one
    // grown by push has room for 16), and most keys of a bulk run are reconciled once.
    if (!s) this.stats.set(key, (s = { selfCount: 0, times: [now], ids: [trace.id] }));
    else {
      s.ids.push(trace.id);
      s.times.push(now);
    }
    // Sustained by its own writes: at least one trigger is an event our own write caused (others
    // may come from a second writer fighting over the same fields) and this pass wrote again.
    const self = selfTriggered(trace) && wroteSomething(trace);
    s.selfCount = self ? s.selfCount + 1 : 0;
    if (s.ids.length > threshold) s.ids.shift();
    while (s.times.length && s.times[0] <= now - 1000) s.times.shift();
    let reason: HotLoopReport['reason'] | undefined;
    if (s.selfCount >= threshold) reason = 'self-triggered';
    else if (s.times.length > maxPerSecond) reason = 'rate';
    if (!reason) return undefined;
    const report: HotLoopReport = {
      key,
      at: now,
      reconciles: reason === 'rate' ? s.times.length : s.selfCount,
      reason,
      traceIds: [...s.ids],
      suspended: this.pauses,
    };
    s.selfCount = 0;
    s.times = [];
    return report;
  }

  /** Starts counting `key` afresh (after the user resumed it). */
  reset(key: string): void {
    this.stats.delete(key);
  }
}

// Loops rather than some(callback): these run after every reconcile, and a callback is a closure
// made per call.
function wroteSomething(trace: ReconcileTrace): boolean {
  for (const c of trace.calls) if (c.source === 'server' && c.code < 300 && !c.noop) return true;
  return false;
}

function selfTriggered(trace: ReconcileTrace): boolean {
  for (const t of trace.triggers) if (t.kind === 'event' && t.selfTriggered) return true;
  return false;
}
