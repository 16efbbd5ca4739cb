import type { Clock, TimerHandle } from '../../util/clock';

/**
 * Collects keys that changed and flushes them once per quiet period, so a burst of watch events
 * (a Deployment rolling out, a thousand objects loaded) refreshes only the changed tree nodes, once.
 */
export class KeyDebouncer<K> {
  private pending = new Set<K>();
  private timer: TimerHandle | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly delayMs: number,
    private readonly flush: (keys: Set<K>) => void,
  ) {}

  add(key: K): void {
    this.pending.add(key);
    if (!this.timer) this.timer = this.clock.setTimeout(() => this.fire(), this.delayMs);
  }

  private fire(): void {
    this.timer = undefined;
    const keys = this.pending;
    this.pending = new Set();
    if (keys.size) this.flush(keys);
  }

  dispose(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.pending.clear();
  }
}
