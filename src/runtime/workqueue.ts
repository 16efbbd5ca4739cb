/**
 * client-go's util/workqueue Type: a FIFO with a `dirty` set (items waiting to be processed) and a
 * `processing` set (items a worker holds). The two sets give the guarantees controllers rely on:
 * - an item is queued at most once however often it is added (adds coalesce);
 * - an item is never handed to two workers at once: an add while it is processing only marks it
 *   dirty, and done() puts it back in the queue — so the change is seen, but after the current pass.
 * get() waits for an item like the Go version blocks on its condition variable.
 */
import type { Clock } from '../util/clock';
import type { WorkqueueMetrics } from './metrics';

export type GetResult<T> = { item: T; shutdown: false } | { item: undefined; shutdown: true };

export interface QueueOptions {
  clock: Clock;
  /** The `name` label of the workqueue metrics (controller-runtime uses the controller name). */
  name?: string;
  metrics?: WorkqueueMetrics;
}

/** Why the queue changed, for views that mirror it (the Work Queue tree). */
export type QueueChange = 'add' | 'get' | 'done' | 'wait' | 'ready' | 'shutdown' | 'forget';
export type QueueListener<T> = (change: QueueChange, item: T | undefined) => void;

export class WorkQueue<T> {
  readonly clock: Clock;
  readonly name: string;
  protected readonly metrics?: WorkqueueMetrics;
  private readonly labels: { name: string };

  // FIFO as an array with a moving head; compacted when the dead prefix grows large.
  private items: T[] = [];
  private head = 0;
  private readonly dirty = new Set<T>();
  private readonly processingSet = new Set<T>();
  private readonly waiters: Array<(r: GetResult<T>) => void> = [];
  private shuttingDownFlag = false;
  private drain = false;
  private drainWaiters: Array<() => void> = [];

  // Timestamps for the latency and work-duration histograms (client-go defaultQueueMetrics).
  private readonly addTimes = new Map<T, number>();
  private readonly processingStart = new Map<T, number>();
  private readonly listeners: QueueListener<T>[] = [];

  constructor(opts: QueueOptions) {
    this.clock = opts.clock;
    this.name = opts.name ?? '';
    this.metrics = opts.metrics;
    this.labels = { name: this.name };
  }

  /** Marks the item as needing processing. No-op while shutting down or when already queued. */
  add(item: T): void {
    if (this.shuttingDownFlag) return;
    if (this.dirty.has(item)) return;
    this.dirty.add(item);
    if (this.metrics) {
      this.metrics.adds.inc(this.labels);
      this.metrics.depth.add(this.labels, 1);
      if (!this.addTimes.has(item)) this.addTimes.set(item, this.clock.now());
    }
    if (this.processingSet.has(item)) {
      this.emit('add', item);
      return; // deferred: done() re-queues it
    }
    this.push(item);
    this.emit('add', item);
  }

  private push(item: T): void {
    const w = this.waiters.shift();
    if (w) {
      // A worker is blocked in get(): hand the item over directly, in FIFO order.
      this.take(item);
      w({ item, shutdown: false });
      return;
    }
    this.items.push(item);
  }

  /** Items waiting in the queue (not processing), in the order get() will return them. */
  len(): number {
    return this.items.length - this.head;
  }

  /**
   * Waits until an item is available and takes it. Returns shutdown=true once the queue is shut
   * down and empty; until then queued items are still handed out (drain semantics).
   */
  get(): Promise<GetResult<T>> {
    const item = this.tryGet();
    if (item !== undefined) return Promise.resolve({ item, shutdown: false });
    if (this.shuttingDownFlag) return Promise.resolve({ item: undefined, shutdown: true });
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Non-blocking get: the next item, or undefined when the queue is empty. */
  tryGet(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined as T;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.take(item);
    return item;
  }

  private take(item: T): void {
    this.processingSet.add(item);
    this.dirty.delete(item);
    if (this.metrics) {
      this.metrics.depth.add(this.labels, -1);
      const now = this.clock.now();
      this.processingStart.set(item, now);
      const added = this.addTimes.get(item);
      if (added !== undefined) {
        this.metrics.latency.observe(this.labels, (now - added) / 1000);
        this.addTimes.delete(item);
      }
    }
    this.emit('get', item);
  }

  /** Marks the item as processed; if it was added meanwhile it goes back in the queue now. */
  done(item: T): void {
    if (this.metrics) {
      const start = this.processingStart.get(item);
      if (start !== undefined) {
        this.metrics.workDuration.observe(this.labels, (this.clock.now() - start) / 1000);
        this.processingStart.delete(item);
      }
    }
    this.processingSet.delete(item);
    if (this.dirty.has(item)) {
      this.push(item);
    } else if (this.processingSet.size === 0 && this.drain) {
      const w = this.drainWaiters;
      this.drainWaiters = [];
      for (const f of w) f();
    }
    this.emit('done', item);
  }

  /** Stops accepting adds and wakes every waiting worker; queued items are still handed out. */
  shutDown(): void {
    if (this.shuttingDownFlag) return;
    this.shuttingDownFlag = true;
    this.onShutDown();
    // Waiters only exist while the queue is empty, so they all get shutdown=true.
    const w = this.waiters.splice(0);
    for (const f of w) f({ item: undefined, shutdown: true });
    this.emit('shutdown', undefined);
  }

  /** Hook for the delaying queue to stop its timer. */
  protected onShutDown(): void {}

  /**
   * Shuts down and resolves once every item being processed has been marked done
   * (ShutDownWithDrain). Items still queued are not waited for, as in client-go.
   */
  shutDownWithDrain(): Promise<void> {
    this.drain = true;
    this.shutDown();
    if (this.processingSet.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.shuttingDownFlag;
  }

  // ---- introspection for the Work Queue view and the metrics gauges ----

  /** Queued items in FIFO order. */
  queued(): T[] {
    return this.items.slice(this.head);
  }

  /** Items being processed, with the time each was taken. */
  processing(): Array<{ item: T; since: number | undefined }> {
    return [...this.processingSet].map((item) => ({
      item,
      since: this.processingStart.get(item),
    }));
  }

  processingCount(): number {
    return this.processingSet.size;
  }

  isProcessing(item: T): boolean {
    return this.processingSet.has(item);
  }

  isDirty(item: T): boolean {
    return this.dirty.has(item);
  }

  /** When the item was (first) added and not yet taken, if it is dirty. */
  addedAt(item: T): number | undefined {
    return this.addTimes.get(item);
  }

  /** Updates the unfinished-work and longest-running gauges (client-go updates them on a tick). */
  updateUnfinishedWork(): void {
    if (!this.metrics) return;
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const start of this.processingStart.values()) {
      const d = (now - start) / 1000;
      total += d;
      longest = Math.max(longest, d);
    }
    this.metrics.unfinishedWork.set(this.labels, total);
    this.metrics.longestRunning.set(this.labels, longest);
  }

  onChange(listener: QueueListener<T>): () => void {
    this.listeners.push(listener);
    return () => {
      const i = this.listeners.indexOf(listener);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  protected emit(change: QueueChange, item: T | undefined): void {
    for (let i = 0; i < this.listeners.length; i++) this.listeners[i](change, item);
  }
}
