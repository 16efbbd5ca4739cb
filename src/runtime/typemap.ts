/**
 * A map keyed by type (apiVersion and kind) that builds no key string: the cache and the
 * controller look a type up on every client call, and a fresh `apiVersion/kind` string per call
 * is an allocation and a hash of its own.
 */
import type { TypeRef } from '../cluster/types';

export class TypeMap<V> {
  private readonly byVersion = new Map<string, Map<string, V>>();

  get(type: TypeRef): V | undefined {
    return this.byVersion.get(type.apiVersion)?.get(type.kind);
  }

  set(type: TypeRef, v: V): void {
    let kinds = this.byVersion.get(type.apiVersion);
    if (!kinds) this.byVersion.set(type.apiVersion, (kinds = new Map()));
    kinds.set(type.kind, v);
  }

  *values(): IterableIterator<V> {
    for (const kinds of this.byVersion.values()) yield* kinds.values();
  }

  clear(): void {
    this.byVersion.clear();
  }
}
