/**
 * The storage layer, etcd's role: objects keyed by group/resource and namespace/name, one
 * cluster-wide resourceVersion bumped by every write, and a bounded log of recent changes that
 * watches resume from (older resourceVersions are "too old", 410 Gone). The log is bounded by count
 * and by bytes, so a few huge objects cannot hold thousands of their old versions in memory.
 *
 * A journal (the write-ahead log of `serve --state`) sees every change before it is applied: if it
 * refuses one (it cannot make it durable), the write fails and nothing changes.
 *
 * Stored objects are never mutated in place and never handed out: a write replaces the stored
 * object, a read clones it. So the log can keep references instead of copies.
 */
import type { KubeObject, WatchEventType } from '../apimachinery/types';
import { microtask } from '../../util/microtask';

export interface Change {
  rv: number;
  storageKey: string;
  type: Exclude<WatchEventType, 'BOOKMARK' | 'ERROR'>;
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  old?: KubeObject;
}

export type ChangeListener = (c: Change) => void;

class Bucket {
  readonly objects = new Map<string, KubeObject>();
  private sorted: string[] | null = null;

  keys(): string[] {
    if (!this.sorted) this.sorted = [...this.objects.keys()].sort();
    return this.sorted;
  }
  set(key: string, obj: KubeObject): void {
    if (!this.objects.has(key)) this.sorted = null;
    this.objects.set(key, obj);
  }
  delete(key: string): void {
    if (this.objects.delete(key)) this.sorted = null;
  }
}

export function objectKey(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

/** How many changes the watch window keeps, like the watch cache's capacity. */
export const DEFAULT_WINDOW = 10_000;
/** How many bytes (of serialized objects) the watch window keeps at most. */
export const DEFAULT_WINDOW_BYTES = 32 * 1024 * 1024;

/** Sees each change before the store applies it; throwing refuses the write. */
export interface Journal {
  append(c: Change, key: string): void;
  /** Resolves once every change appended so far is durable; rejects if that cannot be. */
  sync(): Promise<void>;
  /** True when every change appended so far is durable. */
  readonly idle: boolean;
}

/** Stands in for a change that left the window until the log array is compacted. */
const DROPPED: Change = {
  rv: 0,
  storageKey: '',
  type: 'DELETED',
  object: { apiVersion: '', kind: '', metadata: {} },
};

export interface StoreOptions {
  /** At most this many changes in the watch window. */
  window?: number;
  /** At most this many bytes of objects in the watch window (by `sizeOf`); the newest change always stays. */
  windowBytes?: number;
  /** The size of a stored object in bytes (its JSON length); without it the window is bounded by count only. */
  sizeOf?: (o: KubeObject) => number;
  /** Told of each object a write replaced or deleted, once the write is applied. */
  superseded?: (o: KubeObject) => void;
}

export class Store {
  private rv = 1;
  private readonly buckets = new Map<string, Bucket>();
  private readonly log: Change[] = [];
  /** Sizes of the log's objects, parallel to `log`. */
  private readonly sizes: number[] = [];
  private logStart = 0;
  private logBytes = 0;
  private readonly listeners = new Set<ChangeListener>();
  private pending: Change[] = [];
  private flushing = false;
  private journal: Journal | undefined;
  private readonly window: number;
  private readonly windowBytes: number;
  private readonly sizeOf: ((o: KubeObject) => number) | undefined;
  private readonly superseded: ((o: KubeObject) => void) | undefined;

  constructor(opts: StoreOptions = {}) {
    this.window = opts.window ?? DEFAULT_WINDOW;
    this.windowBytes = opts.windowBytes ?? DEFAULT_WINDOW_BYTES;
    this.sizeOf = opts.sizeOf;
    this.superseded = opts.superseded;
  }

  /** Routes every later change through `j` before it is applied (undefined detaches it). */
  setJournal(j: Journal | undefined): void {
    this.journal = j;
  }

  /**
   * Resolves once every change committed so far is durable (at once without a journal); rejects
   * when the journal cannot make them so. A write is acknowledged only after this.
   */
  sync(): Promise<void> {
    return this.journal ? this.journal.sync() : Promise.resolve();
  }

  /** True when every committed change is durable (always, without a journal). */
  get durable(): boolean {
    return !this.journal || this.journal.idle;
  }

  get resourceVersion(): number {
    return this.rv;
  }

  /**
   * Starts the watch window now: a watch may resume only from the current revision on, as
   * kube-apiserver's watch cache starts at the revision it lists when the server starts, and
   * answers 410 Gone for a watch from before it.
   */
  startWatchWindow(): void {
    for (let i = this.logStart; i < this.log.length; i++) {
      this.logBytes -= this.sizes[i]!;
      this.log[i] = DROPPED;
    }
    this.logStart = this.log.length;
  }

  /** The oldest resourceVersion a watch can still resume from. */
  get oldestResumable(): number {
    return this.log.length > this.logStart ? this.log[this.logStart].rv - 1 : this.rv;
  }

  get(storageKey: string, key: string): KubeObject | undefined {
    return this.buckets.get(storageKey)?.objects.get(key);
  }

  /** Stored objects of one resource in key order (namespace/name). The objects must not be mutated. */
  *scan(storageKey: string, namespace?: string, after?: string): Generator<[string, KubeObject]> {
    const b = this.buckets.get(storageKey);
    if (!b) return;
    const keys = b.keys();
    let i = 0;
    const prefix = namespace !== undefined ? `${namespace}/` : undefined;
    const start = after ?? prefix;
    if (start !== undefined) {
      let lo = 0;
      let hi = keys.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (after !== undefined ? keys[mid] <= start : keys[mid] < start) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    for (; i < keys.length; i++) {
      const k = keys[i];
      if (prefix !== undefined && !k.startsWith(prefix)) break;
      const o = b.objects.get(k);
      if (o) yield [k, o];
    }
  }

  count(storageKey: string, namespace?: string): number {
    const b = this.buckets.get(storageKey);
    if (!b) return 0;
    if (namespace === undefined) return b.objects.size;
    let n = 0;
    for (const _ of this.scan(storageKey, namespace)) n++;
    return n;
  }

  storageKeys(): string[] {
    return [...this.buckets.keys()];
  }

  /** Next resourceVersion, for a write about to be committed. */
  nextRv(): number {
    return this.rv + 1;
  }

  /** Commits one write. `object.metadata.resourceVersion` must already be nextRv(). */
  commit(
    storageKey: string,
    key: string,
    type: Change['type'],
    object: KubeObject,
    old?: KubeObject,
  ): Change {
    const c: Change = { rv: this.rv + 1, storageKey, type, object, ...(old ? { old } : {}) };
    // Before anything changes: an object that cannot be serialized, or a journal that cannot take
    // the change, fails the write whole.
    const size = this.sizeOf?.(object) ?? 0;
    this.journal?.append(c, key);
    this.rv++;
    let b = this.buckets.get(storageKey);
    if (!b) {
      b = new Bucket();
      this.buckets.set(storageKey, b);
    }
    if (type === 'DELETED') b.delete(key);
    else b.set(key, object);
    if (old && old !== object) this.superseded?.(old);
    this.remember(c, size);
    this.pending.push(c);
    if (!this.flushing) {
      this.flushing = true;
      microtask(() => this.flush());
    }
    return c;
  }

  /** Adds a change to the watch window and drops the oldest beyond its count or byte bound. */
  private remember(c: Change, size: number): void {
    this.log.push(c);
    this.sizes.push(size);
    this.logBytes += size;
    while (
      this.log.length - this.logStart > 1 &&
      (this.log.length - this.logStart > this.window || this.logBytes > this.windowBytes)
    ) {
      this.logBytes -= this.sizes[this.logStart];
      // Drop the reference now (it is what frees the old object), compact the arrays later.
      this.log[this.logStart] = DROPPED;
      this.logStart++;
    }
    // Compact now and then rather than shifting on every write.
    if (this.logStart > this.window) {
      this.log.splice(0, this.logStart);
      this.sizes.splice(0, this.logStart);
      this.logStart = 0;
    }
  }

  /** Changes after `rv` (exclusive), or undefined when rv is older than the window keeps. */
  since(rv: number): Change[] | undefined {
    if (rv < this.oldestResumable) return undefined;
    const out: Change[] = [];
    // Binary search the first change with c.rv > rv.
    let lo = this.logStart;
    let hi = this.log.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.log[mid].rv <= rv) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.log.length; i++) out.push(this.log[i]);
    return out;
  }

  /**
   * Listeners hear every committed change, in commit order, from a microtask: never inside the
   * write that caused it, so a listener may write again without re-entrancy.
   */
  subscribe(l: ChangeListener): () => void {
    this.listeners.add(l);
    return () => this.listeners.delete(l);
  }

  /** Changes committed but not yet delivered to listeners (a listener subscribing now misses none of the later ones). */
  get undelivered(): readonly Change[] {
    return this.pending;
  }

  private flush(): void {
    // Deliver in batches; changes committed by listeners are appended and delivered in the same loop.
    while (this.pending.length) {
      const batch = this.pending;
      this.pending = [];
      for (const c of batch) {
        for (const l of [...this.listeners]) {
          try {
            l(c);
          } catch (err) {
            // A failing listener must not starve the others.
            console.error('fake cluster: watch listener failed:', err);
          }
        }
      }
    }
    this.flushing = false;
  }

  /** All objects, for the state file. */
  dump(): { resourceVersion: number; objects: Array<{ storageKey: string; object: KubeObject }> } {
    const objects: Array<{ storageKey: string; object: KubeObject }> = [];
    for (const [storageKey, b] of this.buckets)
      for (const o of b.objects.values()) objects.push({ storageKey, object: o });
    return { resourceVersion: this.rv, objects };
  }

  /** Loads objects without events (restoring a state file into an empty store). */
  restore(
    resourceVersion: number,
    objects: Array<{ storageKey: string; key: string; object: KubeObject }>,
  ): void {
    this.rv = Math.max(this.rv, resourceVersion);
    for (const o of objects) {
      let b = this.buckets.get(o.storageKey);
      if (!b) {
        b = new Bucket();
        this.buckets.set(o.storageKey, b);
      }
      b.set(o.key, o.object);
    }
  }
}
