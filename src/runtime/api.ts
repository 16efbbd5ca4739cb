/**
 * The public surface a reconciler module sees: `import { TerminalError, isNotFound, type Reconciler }
 * from 'reconcile-studio'`. The loader resolves that module name to this file, so everything here
 * must run in the reconciler's worker too — plain functions and types, no runtime state.
 */
import type { DeleteOptions, ObjectMeta, PatchType, TypeRef } from '../cluster/apimachinery/types';
import type { Request, Result } from './reconcile';

export { TerminalError, isTerminalError } from './reconcile';
export type { Request, Result } from './reconcile';
export {
  isNotFound,
  isConflict,
  isForbidden,
  isAlreadyExists,
  isInvalid,
  isGone,
  ignoreNotFound,
} from '../cluster/apimachinery/errors';
export type { TypeRef, ObjectMeta, KubeObject, PatchType } from '../cluster/apimachinery/types';

/** Anything with a type and metadata: a typed CR interface fits without an index signature. */
export interface ObjectLike {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
}

export interface ObjectKeyLike {
  namespace?: string;
  name: string;
}

export interface ListOpts {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
}

/**
 * controller-runtime's client.Client: reads come from the informer cache, writes go to the API
 * server. Writes also copy the server's answer into the object passed (new resourceVersion,
 * defaults), as the Go client does, and return it.
 */
export interface Client {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  get<T = any>(type: TypeRef, key: ObjectKeyLike): Promise<T>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  list<T = any>(type: TypeRef, opts?: ListOpts): Promise<{ items: T[] }>;
  create<T extends ObjectLike>(obj: T): Promise<T>;
  update<T extends ObjectLike>(obj: T): Promise<T>;
  /** A merge patch by default; `json` takes an RFC 6902 array. */
  patch<T extends ObjectLike>(obj: T, patch: unknown, patchType?: PatchType): Promise<T>;
  delete(obj: ObjectLike, opts?: DeleteOptions): Promise<void>;
  status(): StatusWriter;
}

export interface StatusWriter {
  update<T extends ObjectLike>(obj: T): Promise<T>;
  patch<T extends ObjectLike>(obj: T, patch: unknown, patchType?: PatchType): Promise<T>;
}

export interface Logger {
  info(msg: string, values?: Record<string, unknown>): void;
  error(err: unknown, msg: string, values?: Record<string, unknown>): void;
}

export interface EventRecorder {
  event(obj: ObjectLike, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

export interface ReconcileContext {
  client: Client;
  log: Logger;
  recorder: EventRecorder;
  /** The controller's clock (virtual in simulations), ms. */
  now(): number;
  reconcileID: string;
}

/** The default export of a reconciler module (ARCHITECTURE §3). */
export interface Reconciler {
  for: TypeRef;
  owns?: TypeRef[];
  maxConcurrentReconciles?: number;
  /** Controller name; defaults to the lower-cased kind of `for`. */
  name?: string;
  reconcile(ctx: ReconcileContext, req: Request): Promise<Result | void> | Result | void;
}
