/**
 * A tiny work queue for the built-in controllers: keys are de-duplicated while queued and
 * processed from a microtask (never inside the write that queued them), or after a delay on the
 * cluster's clock. Errors are logged and the key retried with exponential backoff.
 * The cluster sits below the runtime (as kube-controller-manager's controllers sit beside, not on,
 * a user's controller-runtime), so it keeps this small synchronous queue rather than depending on
 * src/runtime/workqueue.ts, whose async worker model the built-in controllers do not need.
 */
import type { Clock, TimerHandle } from '../../util/clock';
import { microtask } from '../../util/microtask';

export class WorkQueue {
  private readonly queued = new Set<string>();
  private scheduled = false;
  private readonly timers = new Map<string, { handle: TimerHandle; due: number }>();
  private readonly failures = new Map<string, number>();
  private stopped = false;
  /** One callback for every run: a queue fed one key per write schedules a run per write. */
  private readonly runner = () => this.run();

  constructor(
    private readonly name: string,
    private readonly clock: Clock,
    private readonly process: (key: string) => void,
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    this.queued.add(key);
    if (!this.scheduled) {
      this.scheduled = true;
      microtask(this.runner);
    }
  }

  /**
   * Adds after delayMs on the cluster clock; of two delays pending for a key the earlier wins, as
   * client-go's delaying queue keeps the earliest ready time.
   */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (delayMs <= 0) return this.add(key);
    const due = this.clock.now() + delayMs;
    const pending = this.timers.get(key);
    if (pending && pending.due <= due) return;
    if (pending) this.clock.clearTimeout(pending.handle);
    const handle = this.clock.setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    this.timers.set(key, { handle, due });
  }

  /** Requeue after a failure: 5 ms doubling to 1000 s, like the default controller rate limiter. */
  addRateLimited(key: string): void {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    this.addAfter(key, Math.min(5 * 2 ** n, 1_000_000));
  }

  forget(key: string): void {
    this.failures.delete(key);
  }

  stop(): void {
    this.stopped = true;
    for (const t of this.timers.values()) this.clock.clearTimeout(t.handle);
    this.timers.clear();
    this.queued.clear();
  }

  private run(): void {
    this.scheduled = false;
    const keys = [...this.queued];
    this.queued.clear();
    for (const k of keys) {
      if (this.stopped) return;
      try {
        this.process(k);
      } catch (err) {
        console.error(
          `fake cluster: ${this.name} failed on ${k}:`,
          err instanceof Error ? err.message : err,
        );
        this.addRateLimited(k);
      }
    }
  }
}
