/**
 * The newest version of each object the proxy has seen go by — in a get, a list's items, a watch
 * event or a write's answer — which a write's audit event gives as its `before`. The embedded
 * cluster reads that from its own storage; through a proxy, a read of the cluster before each
 * write would be a request the operator never made (and the apiserver's audit log would show it).
 * What the operator's informers were told is what its reconcile started from, so this is the
 * `before` the debugger's diffs want. Bounded: the least recently touched objects go first.
 *
 * What goes by is mostly reads (a list's items, a get, a watch's events), and only a write asks
 * for a `before`; so reads are remembered undecoded (`later`: their bytes and how to apply them)
 * and decoded, in the order they went by, only when an object is asked for or the undecoded
 * bytes pass a bound. The proxy's answers never wait for a decode, and an operator that mostly
 * reads costs the proxy little more than the bytes' copy.
 */
import type { KubeObject } from '../cluster/apimachinery/types';

export const DEFAULT_LAST_SEEN_LIMIT = 20_000;
/** Undecoded bytes kept before they are decoded anyway. */
export const DEFAULT_PENDING_BYTES = 256 * 1024;

/** Where an object lives: API group, resource, namespace and name (as a request path names it). */
export interface ObjectKey {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

/** An object as it went by, and the bytes it came in. */
export interface Seen {
  object: KubeObject;
  bytes: number;
}

const keyOf = (k: ObjectKey) => `${k.group}/${k.resource}/${k.namespace}/${k.name}`;

export class LastSeen {
  /** Each object with the bytes it came in (its share of a list's): the audit log's measure. */
  private readonly objects = new Map<string, Seen>();
  /** What went by and is not decoded yet, oldest first. */
  private pending: Array<() => void> = [];
  private pendingBytes = 0;

  constructor(
    private readonly limit = DEFAULT_LAST_SEEN_LIMIT,
    private readonly pendingLimit = DEFAULT_PENDING_BYTES,
  ) {}

  get size(): number {
    this.settle();
    return this.objects.size;
  }

  get(k: ObjectKey): KubeObject | undefined {
    return this.lookup(k)?.object;
  }

  /** The object and the bytes it came in. */
  lookup(k: ObjectKey): Seen | undefined {
    this.settle();
    return this.objects.get(keyOf(k));
  }

  /**
   * Something went by whose objects `apply` tells (with `saw` and `forget`) once decoded: applied
   * in turn with everything else, before the next `get`, or when `bytes` more pass the bound.
   */
  later(bytes: number, apply: () => void): void {
    this.pending.push(apply);
    this.pendingBytes += bytes;
    if (this.pendingBytes > this.pendingLimit) this.settle();
  }

  /** Applies what went by undecoded, in order. */
  private settle(): void {
    if (this.pending.length === 0) return;
    const pending = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    for (const apply of pending) {
      try {
        apply();
      } catch {
        // A body that does not decode tells nothing.
      }
    }
  }

  /** Remembers `obj` under its resource, its own namespace and name; it came in `bytes`. */
  saw(group: string, resource: string, obj: unknown, bytes = 0): void {
    this.settle();
    const o = obj as KubeObject | null;
    const name = o?.metadata?.name;
    if (typeof name !== 'string' || name === '') return;
    const key = keyOf({ group, resource, namespace: o?.metadata.namespace ?? '', name });
    // Re-inserted so that the Map's order is the order of last use.
    this.objects.delete(key);
    this.objects.set(key, { object: o as KubeObject, bytes });
    if (this.objects.size > this.limit) {
      const oldest = this.objects.keys().next().value;
      if (oldest !== undefined) this.objects.delete(oldest);
    }
  }

  /** The object is gone (a watch's DELETED, a delete's answer). */
  forget(group: string, resource: string, obj: unknown): void {
    this.settle();
    const o = obj as KubeObject | null;
    const name = o?.metadata?.name;
    if (typeof name !== 'string') return;
    this.objects.delete(keyOf({ group, resource, namespace: o?.metadata.namespace ?? '', name }));
  }
}
