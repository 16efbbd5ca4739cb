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

/** Keys counted before the first sweep for counts that can no longer matter (see `sweep`). */
const FIRST_SWEEP = 1024;

export class HotLoopDetector {
  private readonly stats = new Map<string, Stats>();
  /** The number of keys counted that starts the next sweep. */
  private sweepAt = FIRST_SWEEP;

  constructor(private readonly opts: HotLoopOptions = {}) {}

  /** Keys with counts kept. */
  get size(): number {
    return this.stats.size;
  }

  get pauses(): boolean {
    return (this.opts.action ?? 'pause') === 'pause';
  }

  /** Counts a finished reconcile of `key` at clock time `now`; a report when it makes a hot loop. */
  observe(key: string, trace: ReconcileTrace, now: number): HotLoopReport | undefined {
    const threshold = this.opts.threshold ?? 20;
    const maxPerSecond = this.opts.maxPerSecond ?? 100;
    if (this.stats.size >= this.sweepAt) this.sweep(now, threshold, maxPerSecond);
    let s = this.stats.get(key);
    // Kept per key until a sweep finds it can no longer matter: lists made with their first
    // element are sized to it (one grown by push has room for 16), and most keys of a bulk run
    // are reconciled once.
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

  /**
   * Drops the counts of keys with no self-triggered streak and no pass in the last second: a
   * later report is made of later passes only (a streak counts from zero; a rate report needs more
   * than `maxPerSecond` passes within a second and names the last `threshold`, all of them within
   * that second when `maxPerSecond + 1 >= threshold`, as by default), so dropping them changes no
   * report. Without it a session reconciling for hours kept a record of every key it ever saw.
   * Runs when the map has doubled since the last sweep, so it costs O(1) a pass over time.
   */
  private sweep(now: number, threshold: number, maxPerSecond: number): void {
    if (maxPerSecond + 1 >= threshold) {
      for (const [key, s] of this.stats) {
        const last = s.times[s.times.length - 1];
        if (s.selfCount === 0 && (last === undefined || last <= now - 1000)) this.stats.delete(key);
      }
    }
    this.sweepAt = Math.max(FIRST_SWEEP, this.stats.size * 2);
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
