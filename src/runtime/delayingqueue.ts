/**
 * client-go's DelayingQueue: addAfter(item, d) makes the item available after d. Waiting items
 * sit in a min-heap by ready time; one Clock timer is armed for the earliest, so a thousand
 * waiting items cost one timer. Adding an item that is already waiting keeps the EARLIER ready
 * time (earliest wins) — a later addAfter never postpones a pending one.
 */
import { WorkQueue, type QueueOptions } from './workqueue';
import type { TimerHandle } from '../util/clock';

/** Why an item is waiting, for the Work Queue view ("backoff 3", "requeueAfter", "rate limit"). */
export interface WaitReason {
  kind: 'backoff' | 'requeueAfter' | 'rate-limit' | 'delay';
  /** For backoff: which failure this is (1 = first retry). */
  attempt?: number;
}

interface WaitEntry<T, C> {
  item: T;
  readyAt: number;
  seq: number;
  reason: WaitReason;
  /** The cause the item is added with when it is ready (see WorkQueue.add). */
  cause: C | undefined;
  index: number;
}

export class DelayingQueue<T, C = never> extends WorkQueue<T, C> {
  private heap: WaitEntry<T, C>[] = [];
  private readonly byItem = new Map<T, WaitEntry<T, C>>();
  private seq = 0;
  private timer: TimerHandle | undefined;
  private timerDue = Infinity;

  constructor(opts: QueueOptions) {
    super(opts);
  }

  /**
   * Adds the item after delayMs (immediately when ≤ 0), with `cause` (see WorkQueue.add). Counts
   * as a retry in the workqueue metrics, exactly as client-go's AddAfter does. An item already
   * waiting keeps the earlier ready time, and the reason and cause that go with it.
   */
  addAfter(item: T, delayMs: number, reason: WaitReason = { kind: 'delay' }, cause?: C): void {
    if (this.shuttingDown()) return;
    this.metrics?.retries.inc({ name: this.name });
    if (delayMs <= 0) {
      this.add(item, cause);
      return;
    }
    const readyAt = this.clock.now() + delayMs;
    const existing = this.byItem.get(item);
    if (existing) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        existing.reason = reason;
        existing.cause = cause;
        this.siftUp(existing.index);
        this.arm();
        this.emit('wait', item);
      }
      return;
    }
    const e: WaitEntry<T, C> = {
      item,
      readyAt,
      seq: this.seq++,
      reason,
      cause,
      index: this.heap.length,
    };
    this.heap.push(e);
    this.byItem.set(item, e);
    this.siftUp(e.index);
    this.arm();
    this.emit('wait', item);
  }

  /** Items waiting for their time, earliest first. */
  waiting(): Array<{ item: T; readyAt: number; reason: WaitReason }> {
    return [...this.heap]
      .sort(cmp)
      .map((e) => ({ item: e.item, readyAt: e.readyAt, reason: e.reason }));
  }

  /** When the item will be added, if it is waiting. */
  readyAt(item: T): number | undefined {
    return this.byItem.get(item)?.readyAt;
  }

  protected override onShutDown(): void {
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = Infinity;
  }

  /** Keeps exactly one timer armed for the earliest waiting item. */
  private arm(): void {
    const top = this.heap[0];
    const due = top ? top.readyAt : Infinity;
    if (due === this.timerDue) return;
    this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.timerDue = due;
    if (top) this.timer = this.clock.setTimeout(() => this.fire(), due - this.clock.now());
  }

  private fire(): void {
    this.timer = undefined;
    this.timerDue = Infinity;
    const now = this.clock.now();
    while (this.heap.length && this.heap[0].readyAt <= now) {
      const e = this.pop();
      this.byItem.delete(e.item);
      this.emit('ready', e.item);
      this.add(e.item, e.cause);
    }
    if (!this.shuttingDown()) this.arm();
  }

  // ---- binary heap on (readyAt, seq) ----
  private pop(): WaitEntry<T, C> {
    const top = this.heap[0];
    const last = this.heap.pop()!;
    if (this.heap.length) {
      this.heap[0] = last;
      last.index = 0;
      this.siftDown(0);
    }
    return top;
  }

  private siftUp(i: number): void {
    const h = this.heap;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (cmp(h[i], h[p]) >= 0) break;
      this.swap(i, p);
      i = p;
    }
  }

  private siftDown(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && cmp(h[l], h[m]) < 0) m = l;
      if (r < h.length && cmp(h[r], h[m]) < 0) m = r;
      if (m === i) return;
      this.swap(i, m);
      i = m;
    }
  }

  private swap(a: number, b: number): void {
    const h = this.heap;
    [h[a], h[b]] = [h[b], h[a]];
    h[a].index = a;
    h[b].index = b;
  }
}

function cmp<T, C>(a: WaitEntry<T, C>, b: WaitEntry<T, C>): number {
  return a.readyAt - b.readyAt || a.seq - b.seq;
}
