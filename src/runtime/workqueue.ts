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
  /** Causes kept per pass of an item (see `add`); more are dropped. Default 20. */
  maxCauses?: number;
}

const DEFAULT_MAX_CAUSES = 20;

/** Why the queue changed, for views that mirror it (the Work Queue tree). */
export type QueueChange = 'add' | 'get' | 'done' | 'wait' | 'ready' | 'shutdown' | 'forget';
export type QueueListener<T> = (change: QueueChange, item: T | undefined) => void;

/**
 * What the queue knows of one item. client-go keeps a `dirty` set, a `processing` set and, for
 * its metrics, two maps of times, each keyed by the item; here they are fields of one record, so
 * an add, a get and a done look the item up once (a bulk run queues tens of thousands of keys, and
 * every lookup hashes and compares a key string). The record lives while the item is queued or
 * processing; so do the causes its owner gave with each add (the controller's triggers), which
 * would otherwise need a second map of their own, looked up at every add and every pass.
 */
interface ItemState<T, C> {
  readonly item: T;
  dirty: boolean;
  processing: boolean;
  // Times are undefined rather than NaN when unset: a field that ever holds NaN holds every
  // number boxed, a second object per record.
  /** When the item was added and not yet taken (while it is dirty). */
  addedAt: number | undefined;
  /** When a worker took it (while it is processing). */
  startedAt: number | undefined;
  /** When the pass now processing was added: the wait that ended when a worker took it. */
  takenAddedAt: number | undefined;
  /** Why the item was added since it was last taken, oldest first (while it is dirty). */
  causes: C[] | undefined;
  /** The causes of the pass now processing. */
  takenCauses: C[] | undefined;
}

/**
 * `C`: what an owner says about each add (`add(item, cause)`) and reads back for the pass that
 * handles it (`takenCauses`) — the controller's triggers; client-go's queue has no such thing.
 */
export class WorkQueue<T, C = never> {
  readonly clock: Clock;
  readonly name: string;
  protected readonly metrics?: WorkqueueMetrics;
  private readonly labels: { name: string };
  private readonly maxCauses: number;

  private readonly states = new Map<T, ItemState<T, C>>();
  /**
   * The record last taken. A worker asks about the item it has just taken (its queued time), then
   * marks it done: while that item is processing its record is this one, found without hashing.
   */
  private lastTaken: ItemState<T, C> | undefined;
  // FIFO of dirty items not processing, as an array with a moving head; compacted when the dead
  // prefix grows large.
  private items: ItemState<T, C>[] = [];
  private head = 0;
  private processingN = 0;
  private readonly waiters: Array<(r: GetResult<T>) => void> = [];
  private shuttingDownFlag = false;
  private drain = false;
  private drainWaiters: Array<() => void> = [];
  private readonly listeners: QueueListener<T>[] = [];

  constructor(opts: QueueOptions) {
    this.clock = opts.clock;
    this.name = opts.name ?? '';
    this.metrics = opts.metrics;
    this.labels = { name: this.name };
    this.maxCauses = opts.maxCauses ?? DEFAULT_MAX_CAUSES;
  }

  /**
   * Marks the item as needing processing. No-op while shutting down; when already queued, only
   * `cause` is noted (the adds coalesce, their causes are kept together for the next pass).
   */
  add(item: T, cause?: C): void {
    if (this.shuttingDownFlag) return;
    let s = this.states.get(item);
    if (s?.dirty) {
      if (cause !== undefined && (s.causes?.length ?? 0) < this.maxCauses) {
        if (s.causes) s.causes.push(cause);
        else s.causes = [cause];
      }
      return;
    }
    const now = this.clock.now();
    // A list made with its first cause is sized to it (one grown by push has room for 16), and
    // most passes have one: the list ends in a trace, and a bulk run keeps thousands.
    const causes = cause !== undefined && this.maxCauses > 0 ? [cause] : undefined;
    if (!s) {
      s = {
        item,
        dirty: true,
        processing: false,
        addedAt: now,
        startedAt: undefined,
        takenAddedAt: undefined,
        causes,
        takenCauses: undefined,
      };
      this.states.set(item, s);
    } else {
      s.dirty = true;
      s.addedAt = now;
      s.causes = causes;
    }
    if (this.metrics) {
      this.metrics.adds.inc(this.labels);
      this.metrics.depth.add(this.labels, 1);
    }
    if (s.processing) {
      this.emit('add', item);
      return; // deferred: done() re-queues it
    }
    this.push(s);
    this.emit('add', item);
  }

  private push(s: ItemState<T, C>): void {
    const w = this.waiters.shift();
    if (w) {
      // A worker is blocked in get(): hand the item over directly, in FIFO order.
      this.take(s);
      w({ item: s.item, shutdown: false });
      return;
    }
    this.items.push(s);
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
    const s = this.items[this.head];
    this.items[this.head] = undefined as unknown as ItemState<T, C>;
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    this.take(s);
    return s.item;
  }

  private take(s: ItemState<T, C>): void {
    this.lastTaken = s;
    const now = this.clock.now();
    s.processing = true;
    s.dirty = false;
    s.startedAt = now;
    s.takenAddedAt = s.addedAt;
    s.addedAt = undefined;
    s.takenCauses = s.causes;
    s.causes = undefined;
    this.processingN++;
    if (this.metrics) {
      this.metrics.depth.add(this.labels, -1);
      this.metrics.latency.observe(this.labels, (now - (s.takenAddedAt ?? now)) / 1000);
    }
    this.emit('get', s.item);
  }

  /**
   * Marks the item as processed; if it was added meanwhile it goes back in the queue now. A done()
   * for an item no worker holds changes nothing, where client-go's Done would queue a dirty item a
   * second time.
   */
  done(item: T): void {
    const s = this.stateOf(item);
    if (s?.processing) {
      s.processing = false;
      this.processingN--;
      const now = this.clock.now();
      this.metrics?.workDuration.observe(this.labels, (now - (s.startedAt ?? now)) / 1000);
      s.startedAt = undefined;
      s.takenAddedAt = undefined;
      s.takenCauses = undefined;
      if (s.dirty) this.push(s);
      else this.states.delete(item);
    }
    if (this.processingN === 0 && this.drain && !s?.dirty) {
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
    if (this.processingN === 0) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.push(resolve));
  }

  shuttingDown(): boolean {
    return this.shuttingDownFlag;
  }

  // ---- introspection for the Work Queue view and the metrics gauges ----

  /** Queued items in FIFO order. */
  queued(): T[] {
    const out: T[] = [];
    for (let i = this.head; i < this.items.length; i++) out.push(this.items[i].item);
    return out;
  }

  /** Items being processed, with the time each was taken. */
  processing(): Array<{ item: T; since: number | undefined }> {
    const out: Array<{ item: T; since: number | undefined }> = [];
    for (const s of this.states.values())
      if (s.processing) out.push({ item: s.item, since: s.startedAt });
    return out;
  }

  processingCount(): number {
    return this.processingN;
  }

  isProcessing(item: T): boolean {
    return this.states.get(item)?.processing === true;
  }

  isDirty(item: T): boolean {
    return this.states.get(item)?.dirty === true;
  }

  /** When the item was (first) added and not yet taken, if it is dirty. */
  addedAt(item: T): number | undefined {
    return this.states.get(item)?.addedAt;
  }

  /** When the pass of `item` now processing was added, if it is processing. */
  takenAddedAt(item: T): number | undefined {
    return this.stateOf(item)?.takenAddedAt;
  }

  /** Why the pass of `item` now processing was added (the causes given to `add`), if any. */
  takenCauses(item: T): C[] | undefined {
    return this.stateOf(item)?.takenCauses;
  }

  /** The item's record; a processing item's record is never replaced, so lastTaken is it then. */
  private stateOf(item: T): ItemState<T, C> | undefined {
    const s = this.lastTaken;
    return s !== undefined && s.item === item && s.processing ? s : this.states.get(item);
  }

  /** Updates the unfinished-work and longest-running gauges (client-go updates them on a tick). */
  updateUnfinishedWork(): void {
    if (!this.metrics) return;
    const now = this.clock.now();
    let total = 0;
    let longest = 0;
    for (const s of this.states.values()) {
      if (!s.processing) continue;
      const d = (now - (s.startedAt ?? now)) / 1000;
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
