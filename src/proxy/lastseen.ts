/**
 * The newest version of each object the proxy has seen go by — in a get, a list's items, a watch
 * event or a write's answer — which a write's audit event gives as its `before`. The embedded
 * cluster reads that from its own storage; through a proxy, a read of the cluster before each
 * write would be a request the operator never made (and the apiserver's audit log would show it).
 * What the operator's informers were told is what its reconcile started from, so this is the
 * `before` the debugger's diffs want. Bounded: the least recently touched objects go first.
 */
import type { KubeObject } from '../cluster/apimachinery/types';

export const DEFAULT_LAST_SEEN_LIMIT = 20_000;

/** Where an object lives: API group, resource, namespace and name (as a request path names it). */
export interface ObjectKey {
  group: string;
  resource: string;
  namespace: string;
  name: string;
}

const keyOf = (k: ObjectKey) => `${k.group}/${k.resource}/${k.namespace}/${k.name}`;

export class LastSeen {
  private readonly objects = new Map<string, KubeObject>();

  constructor(private readonly limit = DEFAULT_LAST_SEEN_LIMIT) {}

  get size(): number {
    return this.objects.size;
  }

  get(k: ObjectKey): KubeObject | undefined {
    return this.objects.get(keyOf(k));
  }

  /** Remembers `obj` under its resource, its own namespace and name. */
  saw(group: string, resource: string, obj: unknown): void {
    const o = obj as KubeObject | null;
    const name = o?.metadata?.name;
    if (typeof name !== 'string' || name === '') return;
    const key = keyOf({ group, resource, namespace: o?.metadata.namespace ?? '', name });
    // Re-inserted so that the Map's order is the order of last use.
    this.objects.delete(key);
    this.objects.set(key, o as KubeObject);
    if (this.objects.size > this.limit) {
      const oldest = this.objects.keys().next().value;
      if (oldest !== undefined) this.objects.delete(oldest);
    }
  }

  /** The object is gone (a watch's DELETED, a delete's answer). */
  forget(group: string, resource: string, obj: unknown): void {
    const o = obj as KubeObject | null;
    const name = o?.metadata?.name;
    if (typeof name !== 'string') return;
    this.objects.delete(keyOf({ group, resource, namespace: o?.metadata.namespace ?? '', name }));
  }
}
