/**
 * A shared informer (client-go tools/cache): list once, then watch from the list's
 * resourceVersion, keeping a local store and telling handlers about adds, updates and deletes.
 * A 410 Gone (watch too old) relists, as the reflector does. An optional propagation delay holds
 * each event back on the clock, which makes stale cache reads — and the conflicts they cause —
 * reproducible.
 */
import { isGone } from '../cluster/apimachinery/errors';
import type { KubeObject, ListMeta, TypeRef, WatchEvent } from '../cluster/apimachinery/types';
import type { Clock } from '../util/clock';
import { isPromise, type ApiServer, type WatchHandle } from './apiserver';
import { requestKey } from './reconcile';

const RETRY_MS = 1000;

/** 410 from a Status error, or from a watch request refused with HTTP 410. */
function isGoneError(err: unknown): boolean {
  return isGone(err) || (err as { statusCode?: unknown } | null)?.statusCode === 410;
}

export interface ResourceEventHandler {
  onAdd?(obj: KubeObject): void;
  onUpdate?(oldObj: KubeObject, newObj: KubeObject): void;
  onDelete?(obj: KubeObject): void;
}

export type IndexFunc = (obj: KubeObject) => string[];

export interface InformerOptions {
  api: ApiServer;
  type: TypeRef;
  clock: Clock;
  namespace?: string;
  /** Only the objects this field selector matches (sent with the list and each watch). */
  fieldSelector?: string;
  /** Delay (clock ms) between an event leaving the server and reaching the store. */
  propagationDelayMs?: number;
  /**
   * Told of each list or watch failure before it is retried: it may stop() the informer (a
   * Forbidden that no retry will mend), and then nothing is retried.
   */
  onError?(err: unknown): void;
}

export function objectKey(obj: KubeObject): string {
  return requestKey(obj.metadata);
}

export class Informer {
  readonly type: TypeRef;
  private readonly store = new Map<string, KubeObject>();
  private readonly handlers: ResourceEventHandler[] = [];
  private readonly indexers = new Map<string, IndexFunc>();
  private readonly indices = new Map<string, Map<string, Set<string>>>();
  private watchHandle: WatchHandle | undefined;
  private synced = false;
  private stopped = false;
  private lastRV: string | undefined;
  /** Bumped on every (re)list, so callbacks of a replaced list or watch are ignored. */
  private generation = 0;
  private listing = false;
  private syncWaiter:
    { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | undefined;
  /** The last list/watch failure (retried on the clock). */
  lastError: unknown;
  /** Events seen (for metrics and tests). */
  eventsSeen = 0;

  constructor(private readonly opts: InformerOptions) {
    this.type = opts.type;
  }

  /**
   * Lists and starts the watch. An in-process list is synchronous, so the informer is synced when
   * this returns; a remote one syncs when its list arrives (waitForSync).
   */
  start(): void {
    if (this.watchHandle || this.stopped || this.listing) return;
    this.listAndWatch();
  }

  /** Resolves once the first list has been stored; rejects if the informer stops before. */
  waitForSync(): Promise<void> {
    if (this.synced) return Promise.resolve();
    if (this.stopped) return Promise.reject(new Error(`informer for ${this.type.kind} stopped`));
    if (!this.syncWaiter) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => {}); // a waiter may never come
      this.syncWaiter = { promise, resolve, reject };
    }
    return this.syncWaiter.promise;
  }

  private listAndWatch(): void {
    const { api, type, namespace, fieldSelector } = this.opts;
    const gen = ++this.generation;
    let list: ReturnType<ApiServer['list']>;
    try {
      // The store is never mutated (reads copy, handlers only read), so an in-process server may
      // hand over its own objects: no copy per object listed or changed.
      list = api.list(type, {
        ...(namespace ? { namespace } : {}),
        ...(fieldSelector ? { fieldSelector } : {}),
        sharedObjects: true,
      });
    } catch (err) {
      this.retryLater(gen, err);
      return;
    }
    if (!isPromise(list)) {
      this.replace(list);
      this.watchFrom(gen);
      return;
    }
    this.listing = true;
    list.then(
      (l) => {
        this.listing = false;
        if (this.stopped || gen !== this.generation) return;
        this.replace(l);
        this.watchFrom(gen);
      },
      (err: unknown) => {
        this.listing = false;
        this.retryLater(gen, err);
      },
    );
  }

  /** The reflector's relist: the store becomes the list; differences are dispatched as events. */
  private replace(list: { items: KubeObject[]; metadata: ListMeta }): void {
    // Only a relist can find objects gone while it was not watching; the first list (an empty
    // store) need not remember what it saw.
    const seen = this.store.size > 0 ? new Set<string>() : undefined;
    for (const obj of list.items) {
      const k = objectKey(obj);
      seen?.add(k);
      // Into an empty store, every object is new (a list names each object once).
      const old = seen ? this.store.get(k) : undefined;
      this.put(k, obj);
      if (!old) this.added(obj);
      else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion)
        this.updated(old, obj);
    }
    // Objects that vanished while we were not watching (relist after 410).
    if (seen && this.store.size > seen.size) {
      for (const [k, old] of [...this.store]) {
        if (!seen.has(k)) {
          this.remove(k);
          this.deleted(old);
        }
      }
    }
    this.lastRV = list.metadata.resourceVersion;
    if (!this.synced) {
      this.synced = true;
      this.syncWaiter?.resolve();
      this.syncWaiter = undefined;
    }
  }

  /** Watches from the last resourceVersion seen; a watch that ends by itself is resumed. */
  private watchFrom(gen: number): void {
    if (this.stopped || gen !== this.generation) return;
    const { api, type, namespace, fieldSelector } = this.opts;
    try {
      this.watchHandle = api.watch(
        type,
        {
          ...(namespace ? { namespace } : {}),
          ...(fieldSelector ? { fieldSelector } : {}),
          ...(this.lastRV ? { resourceVersion: this.lastRV } : {}),
          allowWatchBookmarks: true,
          sharedObjects: true,
        },
        (e) => {
          if (gen === this.generation) this.onWatchEvent(e);
        },
        (err) => {
          if (gen !== this.generation || this.stopped) return;
          this.watchHandle = undefined;
          // As the reflector: a closed watch resumes from lastRV; one whose resourceVersion is
          // gone (410) relists; other failures back off before trying again.
          if (err === undefined || err === null) this.watchFrom(gen);
          else if (isGoneError(err)) this.relist();
          else this.retryLater(gen, err, () => this.watchFrom(gen));
        },
      );
    } catch (err) {
      this.retryLater(gen, err);
    }
  }

  private relist(): void {
    this.watchHandle?.stop();
    this.watchHandle = undefined;
    this.listAndWatch();
  }

  /** Backs off on the clock (as the reflector's backoff manager, 1 s here) and tries again. */
  private retryLater(gen: number, err: unknown, retry: () => void = () => this.relist()): void {
    if (this.stopped || gen !== this.generation) return;
    this.lastError = err;
    this.opts.onError?.(err);
    if (this.stopped) return;
    this.opts.clock.setTimeout(() => {
      if (!this.stopped && gen === this.generation) retry();
    }, RETRY_MS);
  }

  private onWatchEvent(e: WatchEvent): void {
    if (this.stopped) return;
    const delay = this.opts.propagationDelayMs ?? 0;
    if (delay > 0) this.opts.clock.setTimeout(() => this.apply(e), delay);
    else this.apply(e);
  }

  private apply(e: WatchEvent): void {
    if (this.stopped) return;
    const obj = e.object;
    if (e.type === 'ERROR') {
      // 410 Gone: our resourceVersion is too old; relist and watch again.
      this.relist();
      return;
    }
    if (obj?.metadata?.resourceVersion) this.lastRV = obj.metadata.resourceVersion;
    if (e.type === 'BOOKMARK') return;
    this.eventsSeen++;
    const k = objectKey(obj);
    const old = this.store.get(k);
    if (e.type === 'DELETED') {
      this.remove(k);
      this.deleted(old ?? obj);
      return;
    }
    this.put(k, obj);
    if (old) this.updated(old, obj);
    else this.added(obj);
  }

  // One method per kind of event rather than a dispatcher taking a callback: an informer hears
  // every change of its type, and a callback made per event is garbage made per event.
  private added(obj: KubeObject): void {
    for (const h of this.handlers) h.onAdd?.(obj);
  }

  private updated(old: KubeObject, obj: KubeObject): void {
    for (const h of this.handlers) h.onUpdate?.(old, obj);
  }

  private deleted(obj: KubeObject): void {
    for (const h of this.handlers) h.onDelete?.(obj);
  }

  /** Registers a handler; like client-go, a late handler first gets an add for every stored object. */
  addEventHandler(h: ResourceEventHandler): void {
    this.handlers.push(h);
    if (this.synced) for (const obj of this.store.values()) h.onAdd?.(obj);
  }

  hasSynced(): boolean {
    return this.synced;
  }

  lastSyncResourceVersion(): string | undefined {
    return this.lastRV;
  }

  /** The stored object (not a copy: callers that hand it out must clone it). */
  getByKey(key: string): KubeObject | undefined {
    return this.store.get(key);
  }

  list(): KubeObject[] {
    return [...this.store.values()];
  }

  addIndexer(name: string, fn: IndexFunc): void {
    this.indexers.set(name, fn);
    const idx = new Map<string, Set<string>>();
    this.indices.set(name, idx);
    for (const [k, obj] of this.store) for (const v of fn(obj)) addTo(idx, v, k);
  }

  byIndex(name: string, value: string): KubeObject[] {
    const keys = this.indices.get(name)?.get(value);
    if (!keys) return [];
    return [...keys].map((k) => this.store.get(k)!).filter(Boolean);
  }

  stop(): void {
    this.stopped = true;
    this.generation++;
    this.syncWaiter?.reject(new Error(`informer for ${this.type.kind} stopped`));
    this.syncWaiter = undefined;
    this.watchHandle?.stop();
    this.watchHandle = undefined;
  }

  private put(k: string, obj: KubeObject): void {
    // Most informers have no indexer: a write to the store is then all there is to do.
    if (this.indexers.size === 0) {
      this.store.set(k, obj);
      return;
    }
    const old = this.store.get(k);
    if (old) this.unindex(k, old);
    this.store.set(k, obj);
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) addTo(idx, v, k);
    }
  }

  private remove(k: string): void {
    const old = this.indexers.size ? this.store.get(k) : undefined;
    if (old) this.unindex(k, old);
    this.store.delete(k);
  }

  private unindex(k: string, obj: KubeObject): void {
    for (const [name, fn] of this.indexers) {
      const idx = this.indices.get(name)!;
      for (const v of fn(obj)) idx.get(v)?.delete(k);
    }
  }
}

function addTo(idx: Map<string, Set<string>>, v: string, k: string): void {
  let s = idx.get(v);
  if (!s) idx.set(v, (s = new Set()));
  s.add(k);
}
