/**
 * The slice of an API server the runtime needs: the in-process fake Cluster satisfies it as is;
 * a client for a remote API server can be adapted to it. Methods are synchronous and throw
 * StatusError, like the in-process Cluster; watch events arrive asynchronously in commit order.
 */
import type {
  DeleteOptions,
  KubeObject,
  ListMeta,
  ListOptions,
  ObjectKey,
  PatchType,
  ResourceInfo,
  TypeRef,
  WatchEvent,
  WatchOptions,
} from '../cluster/types';
import type { Clock } from '../util/clock';

export interface WatchHandle {
  stop(): void;
}

export interface ApiServer {
  readonly clock?: Clock;
  get(type: TypeRef, key: ObjectKey): KubeObject;
  list(type: TypeRef, opts?: ListOptions): { items: KubeObject[]; metadata: ListMeta };
  create(obj: KubeObject, opts?: { dryRun?: boolean }): KubeObject;
  update(obj: KubeObject, opts?: { subresource?: 'status' }): KubeObject;
  patch(
    type: TypeRef,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts?: { subresource?: 'status' },
  ): KubeObject;
  delete(type: TypeRef, key: ObjectKey, opts?: DeleteOptions): unknown;
  watch(type: TypeRef, opts: WatchOptions, onEvent: (e: WatchEvent) => void): WatchHandle;
  resources?(): ResourceInfo[];
  /** The stored object without a copy (must not be mutated); used for diffs when available. */
  peek?(type: TypeRef, key: ObjectKey): KubeObject | undefined;
}

/** `deployments`, `webapps` — the resource name used in traces and error messages. */
export function resourceName(api: ApiServer, type: TypeRef): string {
  const group = type.apiVersion.includes('/') ? type.apiVersion.split('/')[0] : '';
  try {
    const r = api.resources?.().find((x) => x.kind === type.kind && x.group === group);
    if (r) return r.plural;
  } catch {
    // discovery is best effort
  }
  return guessPlural(type.kind);
}

/** The same guess kubectl/controller-gen make when nothing better is known. */
export function guessPlural(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

export function typeKey(type: TypeRef): string {
  return `${type.apiVersion}/${type.kind}`;
}
