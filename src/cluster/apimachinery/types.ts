/**
 * The shapes of Kubernetes API objects as the fake cluster stores and serves them. They mirror
 * k8s.io/apimachinery's metav1 types; fields the cluster does not interpret stay open records.
 */
import type { UserInfo } from '../auth/user';

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

export interface ManagedFieldsEntry {
  manager?: string;
  operation?: 'Apply' | 'Update';
  apiVersion?: string;
  time?: string;
  fieldsType?: 'FieldsV1';
  fieldsV1?: Record<string, unknown>;
  subresource?: string;
}

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  managedFields?: ManagedFieldsEntry[];
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  [k: string]: unknown;
}

export interface ListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
}

/** Which kind of object: `apiVersion` is `group/version`, or just `version` for the core group. */
export interface TypeRef {
  apiVersion: string;
  kind: string;
}

export interface ObjectKey {
  namespace?: string;
  name: string;
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent {
  type: WatchEventType;
  object: KubeObject;
}

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  /** `Exact` reads at `resourceVersion` (or 410); otherwise lists read the newest. */
  resourceVersionMatch?: string;
}

/**
 * In-process readers only, never sent over HTTP: a reader that promises never to mutate what it
 * gets (the runtime's informers, whose reads copy — controller-runtime's cache contract) may be
 * handed the stored objects themselves instead of copies. A server that cannot share (a remote
 * one) ignores it and answers copies, which such a reader may keep just the same.
 */
export interface SharedReadOptions {
  sharedObjects?: boolean;
}

/**
 * In-process writers only, never sent over HTTP: a writer that never hands the answer on as it is
 * (the runtime's client, which gives its caller a copy and keeps the answer in its trace) may be
 * answered with the stored object itself instead of a copy — read, never mutate. A server that
 * cannot share answers a copy, which such a writer may treat just the same.
 */
export interface SharedWriteOptions {
  returnStored?: boolean;
}

export interface WatchOptions extends ListOptions {
  resourceVersion?: string;
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
  /**
   * WatchList: true sends the current objects as ADDED first, then (with allowWatchBookmarks) a
   * BOOKMARK annotated k8s.io/initial-events-end; false sends none. Unset: the legacy rules
   * (initial objects only without a resourceVersion or with "0").
   */
  sendInitialEvents?: boolean;
}

export interface DeleteOptions {
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
  gracePeriodSeconds?: number;
  /** The deprecated form of the propagation policy (true: Orphan); false only changes the code. */
  orphanDependents?: boolean;
}

export type PatchType = 'merge' | 'json' | 'strategic' | 'apply';

export interface WriteOptions {
  dryRun?: boolean;
  fieldManager?: string;
  /** How unknown fields are treated: dropped silently, reported as warnings, or refused (400). Default Warn. */
  fieldValidation?: 'Ignore' | 'Warn' | 'Strict';
  /** Receives the warnings of this write (unknown fields under Warn), as the apiserver's Warning headers. */
  warnings?: string[];
  /** The requesting user, as the request context carries it (a CertificateSigningRequest's spec names it). */
  user?: UserInfo;
}

/** The subresources written through the generic update: status, scale, a CSR's approval. */
export type UpdateSubresource = 'status' | 'scale' | 'approval';

export interface UpdateOptions extends WriteOptions {
  subresource?: UpdateSubresource;
}

/** One servable resource, as discovery describes it. */
export interface ResourceInfo {
  group: string;
  version: string;
  kind: string;
  listKind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  verbs: string[];
  subresources: string[];
  shortNames: string[];
  categories?: string[];
}

/** The k8s metav1.Status body carried by every API error. */
export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface Status {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | ListMeta;
  status: 'Failure' | 'Success';
  message: string;
  /** Omitted when empty, as its JSON tag's omitempty does (a storage error no conversion knows). */
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** Splits `group/version` (or a core `version`) into its parts. */
export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.indexOf('/');
  return i < 0
    ? { group: '', version: apiVersion }
    : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}
