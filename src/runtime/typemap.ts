/**
 * A map keyed by type (apiVersion and kind) that builds no key string: the cache and the
 * controller look a type up on every client call, and a fresh `apiVersion/kind` string per call
 * is an allocation and a hash of its own. The last few types found are kept in a handful of slots
 * compared before the maps: a reconcile's calls go to one or two types, and comparing two short
 * strings is cheaper than hashing them twice.
 */
import type { TypeRef } from '../cluster/apimachinery/types';

interface Entry<V> {
  readonly apiVersion: string;
  readonly kind: string;
  value: V;
}

/** Slots for recently found types (a reconcile reading one type and writing another uses two). */
const RECENT = 4;

export class TypeMap<V> {
  private readonly byVersion = new Map<string, Map<string, Entry<V>>>();
  private readonly recent: Array<Entry<V> | undefined> = new Array<Entry<V> | undefined>(RECENT);
  /** The slot the next type found goes to (round robin). */
  private next = 0;

  get(type: TypeRef): V | undefined {
    for (let i = 0; i < RECENT; i++) {
      const e = this.recent[i];
      if (e !== undefined && e.kind === type.kind && e.apiVersion === type.apiVersion)
        return e.value;
    }
    const e = this.byVersion.get(type.apiVersion)?.get(type.kind);
    if (e === undefined) return undefined;
    this.recent[this.next] = e;
    this.next = (this.next + 1) % RECENT;
    return e.value;
  }

  set(type: TypeRef, value: V): void {
    let kinds = this.byVersion.get(type.apiVersion);
    if (!kinds) this.byVersion.set(type.apiVersion, (kinds = new Map()));
    const e = kinds.get(type.kind);
    // The entry is changed in place, so a slot holding it sees the new value.
    if (e) e.value = value;
    else kinds.set(type.kind, { apiVersion: type.apiVersion, kind: type.kind, value });
  }

  *values(): IterableIterator<V> {
    for (const kinds of this.byVersion.values()) for (const e of kinds.values()) yield e.value;
  }

  clear(): void {
    this.byVersion.clear();
    this.recent.fill(undefined);
    this.next = 0;
  }
}
