/**
 * The slice of an API server the runtime needs: the in-process fake Cluster satisfies it as is
 * (synchronous calls), RemoteApiServer (remote.ts) adapts any API server reached through a
 * kubeconfig (calls return promises). Calls throw (or reject with) StatusError; watch events
 * arrive asynchronously in commit order. Callers handle both shapes without awaiting a plain value,
 * so the in-process path keeps its exact ordering on the virtual clock (a watch event queued by a
 * write is never seen before the write's own result).
 */
import type {
  DeleteOptions,
  KubeObject,
  ListMeta,
  ListOptions,
  ObjectKey,
  PatchType,
  ResourceInfo,
  SharedReadOptions,
  SharedWriteOptions,
  TypeRef,
  WatchEvent,
  WatchOptions,
} from '../cluster/apimachinery/types';
import type { Clock } from '../util/clock';

export interface WatchHandle {
  stop(): void;
}

export type MaybePromise<T> = T | Promise<T>;

export function isPromise<T>(v: MaybePromise<T>): v is Promise<T> {
  return typeof (v as { then?: unknown } | undefined)?.then === 'function';
}

export interface ApiServer {
  readonly clock?: Clock;
  get(type: TypeRef, key: ObjectKey): MaybePromise<KubeObject>;
  /** With `sharedObjects` (in-process), the items may be the server's own: read, never mutate. */
  list(
    type: TypeRef,
    opts?: ListOptions & SharedReadOptions,
  ): MaybePromise<{ items: KubeObject[]; metadata: ListMeta }>;
  /** With `returnStored` (in-process), the answer may be the server's own: read, never mutate. */
  create(
    obj: KubeObject,
    opts?: { dryRun?: boolean } & SharedWriteOptions,
  ): MaybePromise<KubeObject>;
  update(
    obj: KubeObject,
    opts?: { subresource?: 'status' } & SharedWriteOptions,
  ): MaybePromise<KubeObject>;
  patch(
    type: TypeRef,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts?: { subresource?: 'status' } & SharedWriteOptions,
  ): MaybePromise<KubeObject>;
  delete(type: TypeRef, key: ObjectKey, opts?: DeleteOptions): unknown;
  /**
   * `onClose` runs when the watch ends without stop() (server timeout, connection lost, error):
   * the informer then resumes from its last resourceVersion, or relists when that is gone (410).
   */
  watch(
    type: TypeRef,
    opts: WatchOptions & SharedReadOptions,
    onEvent: (e: WatchEvent) => void,
    onClose?: (err?: unknown) => void,
  ): WatchHandle;
  /** Discovery; synchronous (a remote server discovers up front and on refresh). */
  resources?(): ResourceInfo[];
  /** The stored object without a copy (must not be mutated); used for diffs when available. */
  peek?(type: TypeRef, key: ObjectKey): KubeObject | undefined;
  /**
   * Records a core/v1 Event about `involved` (a reconcile's ctx.recorder), best effort; without
   * it the runtime's recorder drops events.
   */
  recordEvent?(
    involved: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    source?: string,
  ): void;
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
