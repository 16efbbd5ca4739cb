import type { Clock, TimerHandle } from '../../util/clock';

/**
 * Collects keys that changed and flushes them once per quiet period, so a burst of watch events
 * (a Deployment rolling out, a thousand objects loaded) refreshes only the changed tree nodes, once.
 *
 * Paced by its consumer: after a flush, the next waits until the consumer says it
 * has taken that one (`taken()`), or until `patienceMs` have passed; keys keep collecting, each
 * once, meanwhile. VS Code runs a tree view's refreshes one after another, each a round trip to
 * the workbench: flushing every quiet period while the workbench is slower than that (a hot loop
 * rewriting an object many times a second on a busy machine) queues refreshes without bound, and
 * the view falls minutes behind the cluster. Paced, at most one refresh waits behind the one
 * running, and the one that waits carries every change since.
 */
export class PacedKeyDebouncer<K> {
  private pending = new Set<K>();
  private timer: TimerHandle | undefined;
  /** When the last flush was handed over, while the consumer has not yet taken it. */
  private handedAt: number | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly patienceMs: number,
    private readonly flush: (keys: Set<K>) => void,
  ) {}

  add(key: K): void {
    this.pending.add(key);
    if (!this.timer) this.timer = this.clock.setTimeout(() => this.fire(), this.delayMs);
  }

  /** The consumer has begun on the last flush: the next may follow after the quiet period. */
  taken(): void {
    if (this.handedAt === null) return;
    this.handedAt = null;
    if (!this.pending.size) return;
    this.clock.clearTimeout(this.timer);
    this.timer = this.clock.setTimeout(() => this.fire(), this.delayMs);
  }

  private fire(): void {
    this.timer = undefined;
    if (!this.pending.size) return;
    if (this.handedAt !== null) {
      const waited = this.clock.now() - this.handedAt;
      if (waited < this.patienceMs) {
        this.timer = this.clock.setTimeout(() => this.fire(), this.patienceMs - waited);
        return;
      }
    }
    const keys = this.pending;
    this.pending = new Set();
    this.handedAt = this.clock.now();
    this.flush(keys);
  }

  dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
    this.handedAt = null;
  }
}
