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

/**
 * One key's recent passes: its self-triggered streak, the clock times of its passes within the
 * last second, and the trace ids of its last `threshold` passes. Most keys of a bulk run pass
 * once and are kept until a sweep: a single pass is held as two numbers, and the lists are made
 * at the key's second pass (a key that had passed once was three objects).
 */
class Passes {
  selfCount = 0;
  /** Oldest first; a number while the key has passed once since it was counted afresh. */
  private times: number[] | number;
  private ids: number[] | number;

  constructor(at: number, id: number) {
    this.times = at;
    this.ids = id;
  }

  add(at: number, id: number, keepIds: number): void {
    const ids = typeof this.ids === 'number' ? [this.ids] : this.ids;
    ids.push(id);
    if (ids.length > keepIds) ids.shift();
    this.ids = ids;
    if (typeof this.times === 'number') this.times = [this.times, at];
    else this.times.push(at);
  }

  /** Forgets the passes at or before `from`; the number left. */
  countAfter(from: number): number {
    const t = this.times;
    if (typeof t === 'number') {
      if (t > from) return 1;
      this.times = [];
      return 0;
    }
    while (t.length && t[0] <= from) t.shift();
    return t.length;
  }

  /** The last pass's time; undefined when none is counted (all were before a report). */
  lastAt(): number | undefined {
    const t = this.times;
    return typeof t === 'number' ? t : t[t.length - 1];
  }

  traceIds(): number[] {
    return typeof this.ids === 'number' ? [this.ids] : [...this.ids];
  }

  /** A report was made: the streak and the rate count start again (the ids are kept). */
  restart(): void {
    this.selfCount = 0;
    this.times = [];
  }
}

/** Keys counted before the first sweep for counts that can no longer matter (see `sweep`). */
const FIRST_SWEEP = 1024;

export class HotLoopDetector {
  private readonly stats = new Map<string, Passes>();
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
    // Kept per key until a sweep finds it can no longer matter.
    let s = this.stats.get(key);
    if (!s) this.stats.set(key, (s = new Passes(now, trace.id)));
    else s.add(now, trace.id, threshold);
    // Sustained by its own writes: at least one trigger is an event our own write caused (others
    // may come from a second writer fighting over the same fields) and this pass wrote again.
    const self = selfTriggered(trace) && wroteSomething(trace);
    s.selfCount = self ? s.selfCount + 1 : 0;
    const lastSecond = s.countAfter(now - 1000);
    let reason: HotLoopReport['reason'] | undefined;
    if (s.selfCount >= threshold) reason = 'self-triggered';
    else if (lastSecond > maxPerSecond) reason = 'rate';
    if (!reason) return undefined;
    const report: HotLoopReport = {
      key,
      at: now,
      reconciles: reason === 'rate' ? lastSecond : s.selfCount,
      reason,
      traceIds: s.traceIds(),
      suspended: this.pauses,
    };
    s.restart();
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
        const last = s.lastAt();
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
