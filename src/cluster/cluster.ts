/**
 * The fake cluster's API: the verbs of kube-apiserver (get, list, watch, create, update, patch,
 * delete, deletecollection, and the status and scale subresources) over an in-memory store, with
 * the apiserver's semantics (resourceVersion, generation, status subresource, no-op writes,
 * finalizers, admission). The admission plugins and the built-in controllers that make the
 * cluster look alive are wired from outside (builtins.ts), as kube-apiserver's admission chain
 * and kube-controller-manager are: a bare `new Cluster()` runs none of them.
 *
 * Every method is synchronous and throws StatusError. Objects going in and out are deep copies.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, TimerHandle } from '../util/clock';
import { RealClock } from '../util/clock';
import { kindShape } from './api/apigraph';
import { clone, decodedFrom, decodedText, forgetDecoded } from './apimachinery/clone';
import { resetFields, resetPaths } from './api/resetfields';
import {
  SCALE_API_VERSION,
  parentEntries,
  replicasField as replicasFieldOf,
  scaleEntries,
} from './managedfields/scalehandler';
import {
  CRD_DELETION_PENDING,
  CRD_FINALIZER,
  crdResourceTypes,
  preparedStatus,
  setCrdCondition,
} from './apiextensions/crd';
import type { FieldError } from './apimachinery/errors';
import {
  OBJECT_MODIFIED,
  StatusError,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  newAlreadyExists,
  newBadRequest,
  newConflict,
  newForbidden,
  newGone,
  newInvalid,
  newMethodNotSupported,
  newNotFound,
  newTooLargeResourceVersion,
} from './apimachinery/errors';
import { continueTooOld, listTooOld, scanAt } from './storage/snapshot';
import { allocateNodePorts, keepAllocated } from './registry/serviceallocation';
import { fieldManagerRequired } from './apimachinery/optionsvalidation';
import { gracePeriodSeconds, gracefulDeletion } from './registry/gracefuldelete';
import {
  checkAppliedTimes,
  checkAppliedTyped,
  checkDecodable,
  checkPatchedTyped,
  decodeTyped,
} from './endpoints/decode';
import { generateName } from './apimachinery/names';
import { bookmarkBody } from './api/bookmarks';
import type { ServiceAccountTokens } from './auth/serviceaccounttoken';
import { goJsonSyntaxError } from './api/gojsonscan';
import { jsonKind } from './api/gotypes';
import {
  deepEqual,
  isObject,
  jsonPatch,
  mergePatch,
  strategicMergePatch,
} from './apimachinery/patch';
import type {
  AdmissionAttributes,
  AdmissionPlugin,
  MutatingAdmissionPlugin,
  ReinvocationContext,
} from './admission/admission';
import type { WebhookSession } from './admission/webhook/session';
import type { ServiceMap } from './admission/webhook/client';
import { CrConverter, needsWebhook } from './apiextensions/crconverter';
import { convertsByWebhook } from './apiextensions/conversion';
import { Registry } from './registry/registry';
import type { ResourceType } from './registry/registry';
import type { FieldRequirement, LabelSelector } from './apimachinery/selector';
import {
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
} from './apimachinery/selector';
import { applyPatch, recordManagedFields } from './managedfields/fieldmanager';
import type { IgnoredFields } from './managedfields/fieldmanager';
import {
  DEDUCED,
  builtinFieldType,
  customResourceFieldType,
  type FieldType,
} from './managedfields/fieldtypes';
import type { Change, ChangeListener } from './storage/store';
import { Store, objectKey } from './storage/store';
import { RESOURCE_VERSION_TOO_HIGH_RETRY_SECONDS } from './storage/watchcache';
import { goZero, sharedGoZero } from './api/goshape';
import { bindPod } from './registry/podbinding';
import { generationBumpsOn } from './api/generation';
import { strategyFor, validateObjectMeta } from './registry/strategy';
import { convertEvent } from './controllers/events';
import { EventRecorder } from './controllers/events';
import type {
  DeleteOptions,
  KubeList,
  KubeObject,
  ManagedFieldsEntry,
  ListOptions,
  ObjectKey,
  PatchType,
  ResourceInfo,
  SharedReadOptions,
  SharedWriteOptions,
  TypeRef,
  UpdateOptions,
  WatchEvent,
  WatchOptions,
  WriteOptions,
} from './apimachinery/types';
import { splitApiVersion } from './apimachinery/types';
import { withoutTypeMeta, withoutTypeMetaJSON } from './apimachinery/typemeta';
import type { ClusterState } from './storage/state';
import { ContainerLogs } from './controllers/containerlogs';
import { microtask } from '../util/microtask';

/** How long before a watch's time-out its last bookmark goes out (cacheWatcher.nextBookmarkTime). */
const PRE_TIMEOUT_BOOKMARK_MS = 2000;

export interface ClusterOptions {
  clock?: Clock;
  /** Interval of watch bookmarks. Default 60 s, like the apiserver's. */
  bookmarkIntervalMs?: number;
  /** How many changes watches can resume from. */
  watchWindow?: number;
  /** How many bytes of changed objects watches can resume from (default 32 MiB). */
  watchWindowBytes?: number;
  /** Objects to start with (a state file), restored before the controllers start. */
  state?: ClusterState;
  /**
   * Where the Services that webhooks' `clientConfig.service` name are served on this machine
   * (`namespace/name` → `host:port`; `serve --webhook-service`): CRD conversion webhooks here,
   * admission webhooks in builtins.ts.
   */
  webhookServices?: ServiceMap;
}

export type {
  AdmissionAttributes,
  AdmissionPlugin,
  MutatingAdmissionPlugin,
} from './admission/admission';
export type { UpdateOptions, WriteOptions } from './apimachinery/types';

export interface PatchOptions extends UpdateOptions {
  force?: boolean;
}

/** Options the cluster passes to itself: an apply carries the applied configuration along. */
interface InternalOptions extends PatchOptions {
  applied?: KubeObject;
}

/**
 * How the HTTP layer hands a decoded body over and takes the written object back, so that a big
 * object is not copied more often than a write needs (each copy of a 3 MiB body is 3 MiB more for
 * the garbage collector).
 */
export interface HandOver extends SharedWriteOptions {
  /** The caller hands over `input` (freshly decoded, held by nobody else): it need not be copied. */
  owned?: boolean;
  /**
   * The caller decoded `input` into its Go type already, as the HTTP handlers do before admission,
   * dropping these unknown fields: the write reports them and does not walk the object again.
   */
  unknownFields?: string[];
  /** The fields the request's JSON body gave twice (endpoints/duplicatefields.ts). */
  duplicateFields?: string[];
}

export interface Watch {
  stop(): void;
}

const DEFAULT_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

const BINDING_TYPE = { apiVersion: 'v1', kind: 'Binding' };

/**
 * A watch's BOOKMARK object: the kind's empty object as the watch cache makes it (the release's
 * own, `api/bookmarks.ts`; else the version's zero value), carrying only the resourceVersion and
 * annotations.
 */
function bookmarkObject(
  t: ResourceType,
  resourceVersion: string,
  annotations?: Record<string, string>,
): KubeObject {
  const zero = (bookmarkBody(t.info.group, t.info.version, t.info.kind) ??
    goZero(t.apiVersion, t.info.kind) ?? {
      kind: t.info.kind,
      apiVersion: t.apiVersion,
    }) as unknown as KubeObject;
  const all = { ...zero.metadata?.annotations, ...annotations };
  zero.metadata = { resourceVersion, ...(Object.keys(all).length ? { annotations: all } : {}) };
  return zero;
}

/** What an HTTPS server serving the cluster is known by. */
export interface ServingIdentity {
  /** The PEM of the CA that signed the serving certificate. */
  caPem: string;
  /** Its service account token issuer and signing key. */
  serviceAccountTokens: ServiceAccountTokens;
}

export class Cluster {
  readonly clock: Clock;
  readonly registry = new Registry();
  readonly store: Store;
  readonly bookmarkIntervalMs: number;
  /** The fake node's container logs: the kubelet writes them, `pods/log` reads them. */
  readonly containerLogs = new ContainerLogs();
  private readonly admission: AdmissionPlugin[] = [];
  private readonly mutatingAdmission: MutatingAdmissionPlugin[] = [];
  private readonly stoppers: Array<() => void> = [];
  /** The served request being run (admission/webhook/session.ts), while its write or read runs. */
  private session: WebhookSession | undefined;
  private readonly events: EventRecorder;
  private closed = false;
  private readonly servedListeners: Array<(identity: ServingIdentity) => void> = [];
  /** CRD conversion webhooks (apiextensions/crconverter.ts). */
  readonly crConverter: CrConverter;

  constructor(opts: ClusterOptions = {}) {
    this.clock = opts.clock ?? new RealClock();
    this.bookmarkIntervalMs = opts.bookmarkIntervalMs ?? 60_000;
    this.crConverter = new CrConverter(opts.webhookServices ?? new Map());
    this.store = new Store({
      ...(opts.watchWindow !== undefined ? { window: opts.watchWindow } : {}),
      ...(opts.watchWindowBytes !== undefined ? { windowBytes: opts.watchWindowBytes } : {}),
      // The cached JSON: every write's answer and watch event serializes it anyway.
      sizeOf: (o) => this.jsonOf(o).length,
      superseded: (o) => this.superseded(o),
    });
    this.events = new EventRecorder(this);
    if (opts.state) this.importState(opts.state);
    for (const ns of DEFAULT_NAMESPACES) {
      if (!this.peek({ apiVersion: 'v1', kind: 'Namespace' }, { name: ns }))
        // As kube-apiserver's system namespaces controller creates them, under its own name.
        this.create(
          { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
          { fieldManager: 'kube-apiserver' },
        );
    }
  }

  /** Adds a validating admission plugin; plugins run in the order added (withBuiltins adds the built-in ones). */
  addAdmission(p: AdmissionPlugin): void {
    this.admission.push(p);
  }

  /**
   * Runs one synchronous verb for a served request whose webhooks (admission, CRD conversion)
   * are called through `session`: runWithSession calls this again until no call is missing.
   */
  withSession<T>(session: WebhookSession, run: () => T): T {
    const outer = this.session;
    this.session = session;
    try {
      return run();
    } finally {
      this.session = outer;
    }
  }

  /** Adds a mutating admission plugin (run in order, before validation). */
  addMutatingAdmission(p: MutatingAdmissionPlugin): void {
    this.mutatingAdmission.push(p);
  }

  /** Registers a stop function run by close(). */
  onClose(stop: () => void): void {
    this.stoppers.push(stop);
  }

  /**
   * Runs `listener` each time an HTTPS server starts serving this cluster, with what that server
   * is known by: the controllers that publish it (the root CA publisher) start then, as
   * kube-controller-manager reads the apiserver's CA at its start.
   */
  onServed(listener: (identity: ServingIdentity) => void): void {
    this.servedListeners.push(listener);
  }

  /** Called by the HTTPS server (endpoints/server.ts) once it listens. */
  served(identity: ServingIdentity): void {
    for (const l of this.servedListeners) l(identity);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const s of this.stoppers.splice(0).reverse()) s();
  }

  /** Everything stored, for the state file. */
  exportState(): ClusterState {
    const d = this.store.dump();
    return { version: 1, resourceVersion: d.resourceVersion, objects: d.objects };
  }

  private importState(state: ClusterState): void {
    const objects = state.objects.map((o) => ({
      storageKey: o.storageKey,
      key: objectKey(o.object.metadata.namespace, o.object.metadata.name!),
      object: o.object,
    }));
    this.store.restore(state.resourceVersion, objects);
    for (const o of state.objects) {
      if (
        o.storageKey === 'apiextensions.k8s.io/customresourcedefinitions' &&
        !o.object.metadata.deletionTimestamp
      ) {
        for (const rt of crdResourceTypes(o.object)) this.registry.add(rt);
      }
    }
  }

  resources(): ResourceInfo[] {
    return this.registry.all().map((t) => clone(t.info));
  }

  /** Every served resource type (each version), for the controllers that work on all of them. */
  resourceTypes(): ResourceType[] {
    return this.registry.all();
  }

  /** The registry entry of a kind, if it is served (the RESTMapper's answer, without a 404). */
  resourceFor(type: TypeRef): ResourceType | undefined {
    return this.registry.forKind(type);
  }

  /**
   * Hears every committed change, in commit order, from a microtask (never inside the write):
   * what the built-in controllers' informers would see.
   */
  subscribe(onChange: ChangeListener): () => void {
    return this.store.subscribe(onChange);
  }

  /** The registry entry of a kind, or a 404 naming it as the RESTMapper would. */
  typeOf(type: TypeRef): ResourceType {
    const t = this.registry.forKind(type);
    if (!t) {
      const { group, version } = splitApiVersion(type.apiVersion ?? '');
      throw new StatusError({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: `no matches for kind "${type.kind}" in version "${group ? `${group}/` : ''}${version}"`,
        reason: 'NotFound',
        details: { group, kind: type.kind },
        code: 404,
      });
    }
    return t;
  }

  private nowCache = { second: NaN, text: '' };

  /**
   * The clock's time as an RFC 3339 timestamp at second precision, as metav1.Time serializes.
   * A served request that is run again (session.ts) sees the time of its first run, so its runs
   * make the same object and send the same webhook reviews.
   */
  now(): string {
    if (this.session) return this.session.memo('now', () => this.clockNow());
    return this.clockNow();
  }

  private clockNow(): string {
    const second = Math.floor(this.clock.now() / 1000);
    if (second !== this.nowCache.second) {
      this.nowCache = {
        second,
        text: new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      };
    }
    return this.nowCache.text;
  }

  private ns(t: ResourceType, namespace: string | undefined): string | undefined {
    if (!t.info.namespaced) return undefined;
    return namespace || 'default';
  }

  /** A resource's schema as field management reads it (a mutating policy's merge uses it too). */
  fieldTypeOf(t: ResourceType): FieldType {
    return this.fieldsOf(t);
  }

  /** ObjectDefaulter.Default of an object admission changed: the kind's defaults, or its CRD schema's. */
  defaultObject(t: ResourceType, obj: KubeObject): void {
    if (t.crd)
      this.registry
        .forKind({ apiVersion: t.apiVersion, kind: t.info.kind })
        ?.schema?.default(obj as Record<string, unknown>);
    else strategyFor(t).defaults?.(obj);
  }

  /** Each resource's schema for field management (fieldtypes.ts), made on first use. */
  private readonly fieldTypes = new WeakMap<ResourceType, FieldType>();

  private fieldsOf(t: ResourceType): FieldType {
    let f = this.fieldTypes.get(t);
    if (!f) {
      f = t.crd
        ? customResourceFieldType(t.schema?.root)
        : (builtinFieldType(t.apiVersion, t.info.kind) ?? DEDUCED);
      this.fieldTypes.set(t, f);
    }
    return f;
  }

  /**
   * What the strategy resets on a write through `subresource`, which field management ignores:
   * the release's reset fields of a built-in, a custom resource's status behind its subresource.
   */
  private ignoredFields(t: ResourceType, subresource: string | undefined): IgnoredFields {
    if (t.crd) return !subresource && t.statusSubresource ? [['status']] : [];
    return resetPaths(t.info.group, t.info.kind, subresource ?? '', t.apiVersion) ?? [];
  }

  /** The length of every text jsonOf made, kept after the text is dropped (see `superseded`). */
  private readonly jsonLengths = new WeakMap<KubeObject, number>();

  /**
   * The JSON text of a stored object, computed once: stored objects never change (a write
   * replaces them), so reads and the HTTP layer reuse it instead of serializing again. It is kept
   * where clone.ts keeps the texts of objects nobody mutates, so a reader handed the stored object
   * itself (SharedReadOptions) copies it with one parse.
   */
  jsonOf(o: KubeObject): string {
    let s = decodedText(o);
    if (s === undefined) {
      s = JSON.stringify(o);
      decodedFrom(o, s);
      this.jsonLengths.set(o, s.length);
    }
    return s;
  }

  /**
   * A write replaced or deleted `o`: reads no longer serve it, so its text is dropped. The watch
   * window and the audit log may still hold the object (a watch resuming from an older version
   * serializes it again), but not a second copy of it as text: for big objects that was half of
   * what the window held.
   */
  private superseded(o: KubeObject): void {
    forgetDecoded(o); // an informer still holding it (shared) copies it by encoding it again
  }

  /**
   * The length of an object's JSON, without serializing it again when it is or was stored (the
   * audit log sizes every write's objects); another object's is computed, not cached, so that a
   * copy's text is not kept for as long as the copy.
   */
  jsonLength(o: KubeObject): number {
    return this.jsonLengths.get(o) ?? JSON.stringify(o).length;
  }

  /** A stored object as a caller of version `t` sees it: a copy, at t's apiVersion. */
  private out(o: KubeObject, t: ResourceType): KubeObject {
    if (this.session && needsWebhook(t, o.apiVersion)) return this.convertOut(o, t);
    if (t.info.kind === 'Event' && o.apiVersion !== t.apiVersion)
      return convertEvent(clone(o), t.apiVersion);
    const c = JSON.parse(this.jsonOf(o)) as KubeObject;
    c.apiVersion = t.apiVersion;
    return c;
  }

  /**
   * A custom resource stored at another version, converted by its CRD's webhook for the served
   * request being run: gathered by a read, needed by a write (apiextensions/crconverter.ts).
   */
  private convertOut(o: KubeObject, t: ResourceType): KubeObject {
    const session = this.session!;
    if (session.request.read)
      return this.crConverter.read(session, t, o, t.apiVersion, this.jsonOf(o));
    return this.crConverter.write(session, t, o, t.apiVersion);
  }

  /**
   * A committed write's answer: out(), except that a custom resource whose conversion is a
   * webhook call is answered at its storage version and converted by the handler after the
   * session (crconverter.ts `convertAnswer`): a write that has committed is never run again.
   */
  private answer(o: KubeObject, t: ResourceType): KubeObject {
    if (this.session && needsWebhook(t, o.apiVersion))
      return JSON.parse(this.jsonOf(o)) as KubeObject;
    return this.out(o, t);
  }

  /**
   * An object on its way into storage at the storage version: a custom resource whose CRD
   * converts by webhook, written at another version, is converted. One whose CRD converts with
   * None is stored at the storage version, pruned and defaulted by that version's schema, as
   * apiextensions-apiserver's storage codec decodes what it reads back (so a field only the
   * written version knows is gone, and the storage version's defaults are there, in the answer
   * and every read). Otherwise the object itself.
   */
  private toStorage(obj: KubeObject, t: ResourceType): KubeObject {
    const to = t.storageApiVersion;
    if (!t.crd || !to || obj.apiVersion === to) return obj;
    if (needsWebhook(t, to))
      return this.session ? this.crConverter.write(this.session, t, obj, to) : obj;
    const storage = this.registry.forKind({ apiVersion: to, kind: t.info.kind });
    const stored = clone(obj);
    stored.apiVersion = to;
    storage?.schema?.prune(stored as Record<string, unknown>);
    storage?.schema?.default(stored as Record<string, unknown>);
    return stored;
  }

  /**
   * out() for list and watch, whose answers informers keep unchanged: the copy remembers the text
   * it was decoded from (clone.ts), so the runtime's cache copies it again with one parse. A
   * reader that shares (SharedReadOptions) gets the stored object itself at its stored version:
   * it never mutates it, and a write replaces rather than changes it.
   */
  private outKept(o: KubeObject, t: ResourceType, shared = false): KubeObject {
    if (o.apiVersion !== t.apiVersion) return this.out(o, t);
    if (shared) {
      this.jsonOf(o); // its text is what the reader's copies parse
      return o;
    }
    const c = this.out(o, t);
    decodedFrom(c, this.jsonOf(o));
    return c;
  }

  /** The last changed object decoded for watchers, per version (see sharedOut). */
  private readonly watched: { stored?: KubeObject; byVersion: Map<string, KubeObject> } = {
    byVersion: new Map(),
  };

  /**
   * A changed object as watchers of version `t` see it: one copy shared by all of them, as the
   * watch cache encodes an event once for every watcher (cachingObject) and client-go's shared
   * informer hands one object to all its handlers. A watcher must not mutate it; the store's own
   * object is never handed out. The store's subscribers hear a change one after the other, so
   * remembering the last changed object is enough.
   */
  private sharedOut(o: KubeObject, t: ResourceType, shared: boolean): KubeObject {
    if (shared && o.apiVersion === t.apiVersion) return this.outKept(o, t, true);
    const w = this.watched;
    if (w.stored !== o) {
      w.stored = o;
      w.byVersion.clear();
    }
    let c = w.byVersion.get(t.apiVersion);
    if (!c) w.byVersion.set(t.apiVersion, (c = this.outKept(o, t)));
    return c;
  }

  /** The stored object's JSON as version `t` serves it, without copying (for the HTTP layer). */
  private outJSON(o: KubeObject, t: ResourceType): string {
    return o.apiVersion === t.apiVersion ? this.jsonOf(o) : JSON.stringify(this.out(o, t));
  }

  /** get() as JSON text. */
  getJSON(type: TypeRef, key: ObjectKey): string {
    const t = this.typeOf(type);
    const o = this.store.get(t.storageKey, objectKey(this.ns(t, key.namespace), key.name));
    if (!o) throw newNotFound(t.gr, key.name);
    return this.outJSON(o, t);
  }

  /**
   * list() as JSON text, concatenating each object's cached JSON; a built-in kind's items without
   * their apiVersion and kind, as kube-apiserver lists them (typemeta.ts).
   */
  listJSON(type: TypeRef, opts: ListOptions = {}): string {
    const t = this.typeOf(type);
    const page = this.listPage(t, opts);
    const item = (o: KubeObject): string => {
      if (t.crd) return this.outJSON(o, t);
      if (o.apiVersion === t.apiVersion) return withoutTypeMetaJSON(o, this.jsonOf(o));
      return JSON.stringify(withoutTypeMeta(this.out(o, t)));
    };
    const items = page.objects.map(item).join(',');
    // A custom resource's list is unstructured: the storage's UpdateList sets its continue
    // always, an empty one too, where a built-in ListMeta omits it.
    const metadata = t.crd
      ? { ...page.metadata, continue: page.metadata.continue ?? '' }
      : page.metadata;
    return `{"apiVersion":${JSON.stringify(t.apiVersion)},"kind":${JSON.stringify(t.info.listKind)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`;
  }

  /**
   * An object as version `apiVersion` of its resource sees it, for admission webhooks called as
   * an equivalent version: core Events converted; a custom resource through its CRD's conversion
   * webhook in a served request (a call the session makes, as a write's), else by None (the
   * apiVersion). A copy made without jsonOf: the object may be one a write is still changing.
   */
  convertTo(obj: KubeObject, apiVersion: string): KubeObject {
    const c = clone(obj);
    if (obj.kind === 'Event' && obj.apiVersion !== apiVersion) return convertEvent(c, apiVersion);
    const t = obj.kind ? this.registry.forKind({ apiVersion, kind: obj.kind }) : undefined;
    if (t?.crd && this.session && obj.apiVersion !== apiVersion && convertsByWebhook(t.conversion))
      return this.crConverter.write(this.session, t, c, apiVersion);
    c.apiVersion = apiVersion;
    return c;
  }

  /**
   * The object as the request's version shows it, for the field manager, which tracks fields in
   * the version they were written in: an events.k8s.io Event's writer owns `note` and `regarding`,
   * not the core fields they are stored as. The view shares the object's metadata, so the
   * managedFields recorded on it are the object's.
   */
  private requestView(o: KubeObject, t: ResourceType): KubeObject {
    if (t.info.kind === 'Event' && t.info.group === 'events.k8s.io')
      return convertEvent(o, 'events.k8s.io/v1');
    return o;
  }

  /** An incoming object at its storage form (core Events are stored as core/v1). */
  private in(o: KubeObject, t: ResourceType): KubeObject {
    if (t.info.kind === 'Event' && t.info.group === 'events.k8s.io') return convertEvent(o, 'v1');
    return o;
  }

  // ---------------------------------------------------------------- reads

  get(type: TypeRef, key: ObjectKey): KubeObject {
    const t = this.typeOf(type);
    const o = this.store.get(t.storageKey, objectKey(this.ns(t, key.namespace), key.name));
    if (!o) throw newNotFound(t.gr, key.name);
    return this.out(o, t);
  }

  /** The stored object itself, not a copy; callers must not mutate it. For controllers and the server's hot paths. */
  peek(type: TypeRef, key: ObjectKey): KubeObject | undefined {
    const t = this.registry.forKind(type);
    if (!t) return undefined;
    return this.store.get(t.storageKey, objectKey(this.ns(t, key.namespace), key.name));
  }

  /** Stored objects of a kind (not copies), optionally in one namespace. */
  *scan(type: TypeRef, namespace?: string): Generator<KubeObject> {
    const t = this.registry.forKind(type);
    if (!t) return;
    for (const [, o] of this.store.scan(t.storageKey, t.info.namespaced ? namespace : undefined))
      yield o;
  }

  list(type: TypeRef, opts: ListOptions & SharedReadOptions = {}): KubeList {
    const t = this.typeOf(type);
    const page = this.listPage(t, opts);
    const shared = opts.sharedObjects === true;
    return {
      apiVersion: t.apiVersion,
      kind: t.info.listKind,
      metadata: page.metadata,
      items: page.objects.map((o) => this.outKept(o, t, shared)),
    };
  }

  /** One page of stored objects (not copies) and the list metadata. */
  private listPage(
    t: ResourceType,
    opts: ListOptions,
  ): { objects: KubeObject[]; metadata: KubeList['metadata'] } {
    const filter = this.filterFor(t, opts);
    const ns = t.info.namespaced && opts.namespace ? opts.namespace : undefined;
    let after: string | undefined;
    let listRv = this.store.resourceVersion;
    let gone = listTooOld;
    if (opts.continue) {
      const tok = decodeContinue(opts.continue);
      after = tok.start;
      // Every page reads at the first page's resourceVersion; -1 (the token a 410 hands out)
      // goes on at the newest.
      if (tok.rv > 0) listRv = tok.rv;
      gone = () => continueTooOld(encodeContinue(-1, tok.start));
    } else if (opts.resourceVersion) {
      const asked = Number(opts.resourceVersion);
      if (opts.resourceVersionMatch !== 'Exact') checkListResourceVersion(opts.resourceVersion);
      if (opts.resourceVersionMatch === 'Exact') {
        if (!Number.isInteger(asked) || asked < 0)
          throw newBadRequest(`invalid resource version: "${opts.resourceVersion}"`);
        listRv = asked;
      }
      // Exactly at, or not older than, a version the store has not reached: the watch cache's
      // answer once its wait is over (watchcache.ts; the HTTP layer waits before it asks).
      if (asked > this.store.resourceVersion) throw this.tooLarge(asked);
    }
    const limit = opts.limit && opts.limit > 0 ? opts.limit : Infinity;
    const objects: KubeObject[] = [];
    let lastKey: string | undefined;
    let more = false;
    let remaining = 0;
    // As the watch cache pages (cacher.go): once the page is full, any object after it, matching
    // or not, means another page; how many there are is said only when nothing is filtered
    // (storage.PrepareContinueToken: a count of unfiltered objects would mislead).
    for (const [k, o] of scanAt(this.store, t.storageKey, listRv, gone, ns, after)) {
      if (objects.length >= limit) {
        more = true;
        remaining++;
        continue;
      }
      if (!filter(o)) continue;
      objects.push(o);
      lastKey = k;
    }
    const metadata: KubeList['metadata'] = { resourceVersion: String(listRv) };
    if (more && lastKey !== undefined) {
      metadata.continue = encodeContinue(listRv, lastKey);
      if (!opts.labelSelector && !opts.fieldSelector) metadata.remainingItemCount = remaining;
    }
    return { objects, metadata };
  }

  /** A read at `asked`, which the store has not reached yet (watch_cache.go's answer). */
  private tooLarge(asked: number): StatusError {
    return newTooLargeResourceVersion(
      asked,
      this.store.resourceVersion,
      RESOURCE_VERSION_TOO_HIGH_RETRY_SECONDS,
    );
  }

  /** A predicate for label/field selectors and namespace; throws 400 on a bad selector. */
  filterFor(t: ResourceType, opts: ListOptions): (o: KubeObject) => boolean {
    const labels: LabelSelector = parseLabelSelector(opts.labelSelector);
    const fields: FieldRequirement[] = parseFieldSelector(opts.fieldSelector);
    const known = new Set([
      'metadata.name',
      'metadata.namespace',
      ...Object.keys(t.fieldLabels?.({}) ?? {}),
    ]);
    for (const f of fields) {
      if (!known.has(f.field)) {
        // A kind that registers field label conversions (pods, secrets…) answers with its
        // conversion func's error; the others with the default one's.
        throw newBadRequest(
          t.crd || !t.fieldLabels
            ? `"${f.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`
            : `field label not supported: ${f.field}`,
        );
      }
    }
    const ns = t.info.namespaced && opts.namespace ? opts.namespace : undefined;
    return (o) => {
      if (ns !== undefined && o.metadata.namespace !== ns) return false;
      if (labels.length && !matchesLabels(labels, o.metadata.labels)) return false;
      if (fields.length) {
        const fv: Record<string, string> = {
          'metadata.name': o.metadata.name ?? '',
          'metadata.namespace': o.metadata.namespace ?? '',
          ...(t.fieldLabels?.(o as Record<string, unknown>) ?? {}),
        };
        if (!matchesFields(fields, fv)) return false;
      }
      return true;
    };
  }

  // ---------------------------------------------------------------- watch

  /**
   * Watches a kind. Without a resourceVersion (or "0") the current objects arrive first as ADDED,
   * as the apiserver does; with one, the changes after it, or an ERROR event carrying a 410
   * Expired Status when it is older than the window. Events arrive from a microtask, in commit
   * order. `onClose` runs when the watch ends by itself (timeoutSeconds, error). A change's object
   * is shared by every watcher of the version (sharedOut): read it, never mutate it. With
   * `sharedObjects` it is the stored object itself. With `unconverted`, a custom resource whose
   * CRD converts by webhook comes as stored (its own version), for the served watch to convert.
   */
  watch(
    type: TypeRef,
    opts: WatchOptions & SharedReadOptions & { unconverted?: boolean },
    onEvent: (ev: WatchEvent) => void,
    onClose?: () => void,
  ): Watch {
    const t = this.typeOf(type);
    const shared = opts.sharedObjects === true;
    const raw = opts.unconverted === true && convertsByWebhook(t.conversion);
    const view = (o: KubeObject) =>
      raw && o.apiVersion !== t.apiVersion ? o : this.sharedOut(o, t, shared);
    const filter = this.filterFor(t, opts);
    const queue: WatchEvent[] = [];
    let scheduled = false;
    let stopped = false;
    let unsubscribe: () => void = () => {};
    const timers: TimerHandle[] = [];
    const drain = () => {
      scheduled = false;
      while (queue.length && !stopped) {
        const ev = queue.shift()!;
        try {
          onEvent(ev);
        } catch (err) {
          console.error('fake cluster: watch handler failed:', err);
        }
      }
    };
    const push = (ev: WatchEvent) => {
      queue.push(ev);
      if (!scheduled) {
        scheduled = true;
        microtask(drain);
      }
    };
    const stop = (ended: boolean) => {
      if (stopped) return;
      stopped = true;
      unsubscribe();
      for (const h of timers) this.clock.clearTimeout(h);
      if (ended) queueMicrotask(() => onClose?.());
    };
    const deliver = (c: Change) => {
      if (c.storageKey !== t.storageKey) return;
      const now = filter(c.object);
      const before = c.old ? filter(c.old) : false;
      if (c.type === 'MODIFIED') {
        if (now && before) push({ type: 'MODIFIED', object: view(c.object) });
        else if (now) push({ type: 'ADDED', object: view(c.object) });
        else if (before) {
          // Left the selection: the cacher sends the previous content at the event's version.
          const left = clone(c.old!);
          left.metadata.resourceVersion = c.object.metadata.resourceVersion;
          push({ type: 'DELETED', object: view(left) });
        }
      } else if (now) push({ type: c.type, object: view(c.object) });
    };

    const rvParam = opts.resourceVersion;
    let threshold = this.store.resourceVersion;
    // sendInitialEvents=false (WatchList without initial events) starts at the resourceVersion
    // given, or now; true sends the current objects whatever the resourceVersion ("not older
    // than" it), once the store has reached it: before, the watch cache's error watcher answers
    // (one ERROR event, after the wait watchcache.ts makes over HTTP).
    const fromNow = !rvParam || rvParam === '0';
    const asked = fromNow ? 0 : Number(rvParam);
    if (opts.sendInitialEvents && asked > threshold) {
      push({ type: 'ERROR', object: this.tooLarge(asked).status as unknown as KubeObject });
      queueMicrotask(() => stop(true));
      return { stop: () => stop(false) };
    }
    if (opts.sendInitialEvents ?? fromNow) {
      const ns = t.info.namespaced && opts.namespace ? opts.namespace : undefined;
      for (const [, o] of this.store.scan(t.storageKey, ns))
        if (filter(o))
          push({
            type: 'ADDED',
            object:
              raw && o.apiVersion !== t.apiVersion
                ? o
                : shared
                  ? this.outKept(o, t, true)
                  : this.out(o, t),
          });
      if (opts.sendInitialEvents && opts.allowWatchBookmarks) {
        push({
          type: 'BOOKMARK',
          object: bookmarkObject(t, String(threshold), { 'k8s.io/initial-events-end': 'true' }),
        });
      }
    } else if (!fromNow) {
      const from = Number(rvParam);
      if (!Number.isInteger(from) || from < 0)
        throw newBadRequest(`invalid resource version: "${rvParam}"`);
      const changes = this.store.since(from);
      if (!changes) {
        const gone = newGone(`too old resource version: ${from} (${this.store.oldestResumable})`);
        push({ type: 'ERROR', object: gone.status as unknown as KubeObject });
        queueMicrotask(() => stop(true));
        return { stop: () => stop(false) };
      }
      for (const c of changes) deliver(c);
      // From a version the store has not reached: the changes after it, as the cacheWatcher sends
      // only events newer than the resourceVersion it was started from.
      threshold = Math.max(threshold, from);
    }
    unsubscribe = this.store.subscribe((c) => {
      if (c.rv > threshold && !stopped) deliver(c);
    });
    const timeoutMs =
      opts.timeoutSeconds && opts.timeoutSeconds > 0 ? opts.timeoutSeconds * 1000 : 0;
    if (opts.allowWatchBookmarks) {
      const bookmark = () => {
        // Not behind the watch's start (a watch from a version the store has not reached yet).
        if (stopped || this.store.resourceVersion < threshold) return;
        push({
          type: 'BOOKMARK',
          object: bookmarkObject(t, String(this.store.resourceVersion)),
        });
      };
      // As the watch cache's cacheWatcher.nextBookmarkTime: every interval, and 2 s before the
      // deadline (then no more), so a client that re-watches after the time-out resumes from as
      // recent a resourceVersion as possible.
      const lastAt = timeoutMs ? this.clock.now() + timeoutMs - PRE_TIMEOUT_BOOKMARK_MS : Infinity;
      const schedule = () => {
        const now = this.clock.now();
        const next = Math.min(now + this.bookmarkIntervalMs, lastAt);
        if (next > now) timers[0] = this.clock.setTimeout(tick, next - now);
      };
      const tick = () => {
        bookmark();
        schedule();
      };
      schedule();
    }
    if (timeoutMs) timers[1] = this.clock.setTimeout(() => stop(true), timeoutMs);
    return { stop: () => stop(false) };
  }

  // ---------------------------------------------------------------- create

  create(input: KubeObject, opts: WriteOptions & SharedWriteOptions = {}): KubeObject {
    if (!isObject(input) || !isObject(input.metadata)) {
      throw newBadRequest("Object 'metadata' is missing in the request body");
    }
    const t = this.typeOf(input);
    return this.createAs(t, input, opts);
  }

  /** Create of a resolved type (the HTTP layer resolves the type from the URL). */
  createAs(
    t: ResourceType,
    input: KubeObject,
    opts: WriteOptions & { applied?: KubeObject } & HandOver = {},
  ): KubeObject {
    const st = strategyFor(t);
    if (!opts.owned) checkDecodable(input);
    const decoded = opts.owned ? input : clone(input);
    checkUnknownFields(
      t,
      opts.unknownFields ?? decodeTyped(t, decoded),
      opts,
      opts.duplicateFields,
    );
    const obj = this.in(decoded, t);
    obj.apiVersion = storedApiVersion(t);
    obj.kind = t.info.kind;
    const md = obj.metadata;
    if (t.info.namespaced) md.namespace = md.namespace || 'default';
    else delete md.namespace;
    const sentName = md.name ?? '';
    if (!md.name && md.generateName) {
      const base = md.generateName;
      md.name = this.memo(`generateName:${base}`, () => generateName(base));
    }
    const qualifiedKind = invalidKindOf(t);
    if (!md.name) {
      throw newInvalid(qualifiedKind, '', [
        fieldRequired('metadata.name', 'name or generateName is required'),
      ]);
    }
    if (t.crd) this.refuseIfCrdTerminating(t);
    // BeforeCreate: the server owns these fields. A dry run's storage (DryRunnableStorage.Create)
    // answers the object with the resourceVersion it was sent: no etcd store clears or refuses it.
    const sentResourceVersion = md.resourceVersion;
    md.uid = this.memo('uid', () => randomUUID());
    md.creationTimestamp = this.memo('creationTimestamp', () => this.now());
    delete md.deletionTimestamp;
    delete md.deletionGracePeriodSeconds;
    delete md.resourceVersion;
    delete md.managedFields;
    if (st.hasGeneration) md.generation = 1;
    else delete md.generation;
    checkUnknownFields(t, st.defaults?.(obj), opts);
    // The create handler records the writer's fields on the decoded, defaulted object, before
    // mutating admission and the strategy's PrepareForCreate (what they set, nobody manages),
    // compared with the kind's zero value: a struct the type always holds, left empty, is no one's.
    if (!opts.applied)
      recordManagedFields(
        this.requestView(obj, t),
        t.crd ? undefined : (sharedGoZero(t.apiVersion, t.info.kind) as KubeObject | undefined),
        opts.fieldManager,
        'Update',
        t.apiVersion,
        this.now(),
        undefined,
        this.fieldsOf(t),
        this.ignoredFields(t, undefined),
      );
    st.prepareForCreate?.(obj, opts.user, this.now());
    if (isCoreService(t))
      allocateNodePorts(
        obj,
        this.scan({ apiVersion: 'v1', kind: 'Service' }),
        this.session?.random('nodePorts'),
      );
    const attrs: AdmissionAttributes = {
      operation: 'CREATE',
      type: t,
      object: obj,
      dryRun: !!opts.dryRun,
      name: sentName,
    };
    this.mutate(attrs);
    const errs = [
      ...validateObjectMeta(obj, st.nameRule, kubeValidated(t)),
      ...(st.validate?.(obj) ?? []),
    ];
    if (errs.length) throw newInvalid(qualifiedKind, md.name, errs);
    if (isCrd(t)) obj.status = preparedStatus(obj);
    this.admit(attrs);
    const key = objectKey(md.namespace, md.name);
    if (this.store.get(t.storageKey, key)) throw newAlreadyExists(t.gr, md.name);
    if (opts.applied)
      applyPatch(
        obj,
        undefined,
        opts.applied,
        opts.fieldManager!,
        t.apiVersion,
        this.now(),
        true,
        undefined,
        this.fieldsOf(t),
        this.ignoredFields(t, undefined),
      );
    // The storage encodes it (a dry run's too: DryRunnableStorage copies it through the codec).
    const stored = this.toStorage(obj, t);
    if (opts.dryRun) {
      if (sentResourceVersion !== undefined) md.resourceVersion = sentResourceVersion;
      return this.out(obj, t);
    }
    stored.metadata.resourceVersion = String(this.store.nextRv());
    this.serializable(t, stored);
    this.store.commit(t.storageKey, key, 'ADDED', stored);
    this.afterWrite(t, stored);
    // The HTTP layer only serializes the answer, from the cached JSON: no copy needed.
    if (opts.returnStored && stored.apiVersion === t.apiVersion) return stored;
    return this.answer(stored, t);
  }

  /**
   * Serializes an object about to be committed (its JSON is cached for the reads), so that a
   * write is all-or-nothing: what cannot be serialized is refused, never stored half-way.
   */
  private serializable(t: ResourceType, obj: KubeObject): void {
    try {
      this.jsonOf(obj);
    } catch (err) {
      throw newBadRequest(
        `${t.info.kind} in version "${t.info.version}" cannot be handled as a ${t.info.kind}: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }

  private refuseIfCrdTerminating(t: ResourceType): void {
    const crd = this.store.get(
      'apiextensions.k8s.io/customresourcedefinitions',
      objectKey(undefined, t.crd!),
    );
    if (crd?.metadata.deletionTimestamp) {
      throw newMethodNotSupported(t.gr, 'create');
    }
  }

  private admit(a: AdmissionAttributes): void {
    a.session = this.session;
    for (const p of this.admission) p(a);
  }

  /**
   * The mutating chain, run a second time when a webhook changed the object and asked for it
   * (admission's reinvoker: every in-tree plugin again, and the webhooks that need it).
   */
  private mutate(a: AdmissionAttributes): void {
    a.session = this.session;
    const rc: ReinvocationContext = { isReinvoke: false, shouldReinvoke: false, values: new Map() };
    a.reinvocation = rc;
    for (const p of this.mutatingAdmission) p(a);
    if (!rc.shouldReinvoke) return;
    rc.isReinvoke = true;
    for (const p of this.mutatingAdmission) p(a);
  }

  /** The same value in every run of a served request (session.ts); made afresh in-process. */
  private memo<T>(key: string, make: () => T): T {
    return this.session ? this.session.memo(key, make) : make();
  }

  /** Hooks that keep the registry in step with CRDs. */
  private afterWrite(t: ResourceType, obj: KubeObject | undefined, deleted?: KubeObject): void {
    if (t.info.group !== 'apiextensions.k8s.io') return;
    if (deleted) {
      this.registry.removeCrd(deleted.metadata.name!);
      return;
    }
    if (obj) for (const rt of crdResourceTypes(obj)) this.registry.add(rt);
  }

  // ---------------------------------------------------------------- update

  update(input: KubeObject, opts: UpdateOptions & SharedWriteOptions = {}): KubeObject {
    if (!isObject(input) || !isObject(input.metadata))
      throw newBadRequest("Object 'metadata' is missing in the request body");
    if (input.kind === 'Scale' && opts.subresource === 'scale') {
      throw newBadRequest(
        'an in-process scale update takes the scaled object (e.g. the Deployment), or use patch with subresource "scale"',
      );
    }
    const t = this.typeOf(input);
    return this.updateAs(t, input, opts);
  }

  updateAs(
    t: ResourceType,
    input: KubeObject,
    opts: InternalOptions & HandOver = {},
    allowUnconditional = false,
  ): KubeObject {
    // Decoded into its Go type first, as the apiserver does before anything looks at it
    // (a Scale is checked by the scale update itself).
    let decoded = input;
    if (opts.subresource !== 'scale') {
      // Checked even when handed over: a patched object was never decoded from a body.
      checkDecodable(input);
      if (!opts.owned) decoded = clone(input);
      checkUnknownFields(
        t,
        opts.unknownFields ?? decodeTyped(t, decoded),
        opts,
        opts.duplicateFields,
      );
    }
    const name = decoded.metadata.name;
    const qualifiedKind = invalidKindOf(t);
    if (!name)
      throw newInvalid(qualifiedKind, '', [
        fieldRequired('metadata.name', 'name or generateName is required'),
      ]);
    const ns = this.ns(t, decoded.metadata.namespace);
    const key = objectKey(ns, name);
    const stored = this.store.get(t.storageKey, key);
    if (!stored) throw newNotFound(t.gr, name);
    if (opts.subresource === 'scale') return this.updateScale(t, stored, input, opts);
    if (opts.subresource && !t.info.subresources.includes(opts.subresource))
      throw newNotFound(t.gr, name);
    // The update is made at the request's version: a custom resource stored at another is
    // converted first (by its webhook; None keeps the stored object, as before).
    const old = this.session && needsWebhook(t, stored.apiVersion) ? this.out(stored, t) : stored;
    const st = strategyFor(t);
    const obj = this.in(decoded, t);
    const rv = obj.metadata.resourceVersion;
    if (rv) {
      if (rv !== old.metadata.resourceVersion) throw newConflict(t.gr, name, OBJECT_MODIFIED);
    } else if (!st.allowUnconditionalUpdate && !allowUnconditional) {
      // The generic registry's Update qualifies this one by resource ("leases.coordination.k8s.io"),
      // and the missing version is the uint64 0, which the field error writes as JSON.
      throw newInvalid({ group: t.info.group, kind: t.info.plural }, name, [
        fieldInvalid('metadata.resourceVersion', 0, 'must be specified for an update'),
      ]);
    }
    if (obj.metadata.uid && obj.metadata.uid !== old.metadata.uid) {
      throw newConflict(
        t.gr,
        name,
        `Precondition failed: UID in precondition: ${obj.metadata.uid}, UID in object meta: ${old.metadata.uid}`,
      );
    }
    let next: KubeObject;
    // What the kind's strategy for this subresource puts back from the stored object (built-ins).
    const reset = resetPaths(t.info.group, t.info.kind, opts.subresource ?? '', t.apiVersion);
    if (opts.subresource === 'status' && !reset) {
      // A custom resource's status strategy keeps only the status (and the managed fields).
      next = clone(old);
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
      next.metadata.managedFields = obj.metadata.managedFields ?? old.metadata.managedFields;
    } else {
      next = obj;
      next.apiVersion = storedApiVersion(t);
      next.kind = t.info.kind;
      const md = next.metadata;
      const omd = old.metadata;
      md.name = omd.name;
      if (omd.namespace !== undefined) md.namespace = omd.namespace;
      else delete md.namespace;
      md.uid = omd.uid;
      md.creationTimestamp = omd.creationTimestamp;
      setOrDelete(md, 'deletionTimestamp', omd.deletionTimestamp);
      setOrDelete(md, 'deletionGracePeriodSeconds', omd.deletionGracePeriodSeconds);
      setOrDelete(md, 'generation', omd.generation);
      if (st.prepareForUpdate) st.prepareForUpdate(next, old, opts.subresource ?? '', this.now());
      else if (reset) resetFields(next, old, reset);
      else if (t.statusSubresource)
        setOrDelete(next as Record<string, unknown>, 'status', old.status);
      if (t.info.kind === 'Namespace' && t.info.group === '') {
        // spec.finalizers change only through /finalize.
        next.spec = clone(old.spec);
      }
      if (omd.deletionTimestamp) {
        const added = (md.finalizers ?? []).filter((f) => !(omd.finalizers ?? []).includes(f));
        if (added.length) {
          const forbidden = fieldForbidden(
            'metadata.finalizers',
            `no new finalizers can be added if the object is being deleted, found new finalizers []string{${[
              ...added,
            ]
              .sort()
              .map((f) => JSON.stringify(f))
              .join(', ')}}`,
          );
          // Found twice, as kube-apiserver finds it: by the strategy's ValidateObjectMetaUpdate
          // and again by rest.BeforeUpdate's; the message says it once, the causes twice.
          throw newInvalid(qualifiedKind, name, [forbidden, forbidden]);
        }
      }
      if (isCoreService(t)) keepAllocated(next, old);
      checkUnknownFields(t, st.defaults?.(next), opts);
      if (isCoreService(t))
        allocateNodePorts(next, this.scan({ apiVersion: 'v1', kind: 'Service' }));
    }
    return this.finishUpdate(t, key, old, next, opts, stored);
  }

  /** The common tail of update and patch: validation, generation, no-op detection, admission, commit. */
  private finishUpdate(
    t: ResourceType,
    key: string,
    old: KubeObject,
    next: KubeObject,
    opts: InternalOptions & HandOver,
    /** The stored object `old` was converted from (itself when no conversion was made). */
    stored: KubeObject = old,
  ): KubeObject {
    const st = strategyFor(t);
    const name = old.metadata.name!;
    const qualifiedKind = invalidKindOf(t);
    const admission: AdmissionAttributes = {
      operation: 'UPDATE',
      type: t,
      object: next,
      old,
      dryRun: !!opts.dryRun,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    };
    this.mutate(admission);
    const errs: FieldError[] = [
      ...validateObjectMeta(next, st.nameRule, kubeValidated(t)),
      ...(st.validate?.(next, old, opts.subresource ?? '') ?? []),
    ];
    if (errs.length) throw newInvalid(qualifiedKind, name, errs);
    if (st.hasGeneration && opts.subresource !== 'status') {
      const on = t.crd ? 'spec' : generationBumpsOn(t.info.group, t.info.kind);
      const metadataChanged =
        (on === 'annotations' &&
          !deepEqual(old.metadata.annotations ?? {}, next.metadata.annotations ?? {})) ||
        (on === 'labels' && !deepEqual(old.metadata.labels ?? {}, next.metadata.labels ?? {}));
      if (on !== 'never' && (specChanged(t, old, next) || metadataChanged))
        next.metadata.generation = (old.metadata.generation ?? 0) + 1;
    }
    if (!opts.subresource) st.finishUpdate?.(next, old);
    if (isCrd(t) && opts.subresource !== 'status') next.status = preparedStatus(next, old);
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (!opts.applied)
      recordManagedFields(
        this.requestView(next, t),
        this.requestView(old, t),
        opts.fieldManager,
        'Update',
        t.apiVersion,
        this.now(),
        opts.subresource,
        this.fieldsOf(t),
        this.ignoredFields(t, opts.subresource),
      );
    if (deepEqual(withoutManagedTimes(next), withoutManagedTimes(old))) {
      if (old !== stored) return old; // already a copy at the request's version
      return opts.returnStored && old.apiVersion === t.apiVersion ? old : this.out(old, t);
    }
    this.admit(admission);
    const toStore = this.toStorage(next, t);
    if (opts.dryRun) return this.out(next, t);
    toStore.metadata.resourceVersion = String(this.store.nextRv());
    this.serializable(t, toStore);
    if (
      toStore.metadata.deletionTimestamp &&
      !hasFinalizers(t, toStore) &&
      !old.metadata.deletionGracePeriodSeconds
    ) {
      // The last finalizer is gone: the deletion completes now (ShouldDeleteDuringUpdate; an
      // object in its grace period waits for the DELETE that ends it). The update itself is
      // never stored: the answer is the updated object at the version it was read at
      // (deleteWithoutFinalizers returns the request's object), the DELETED event the delete's.
      this.store.commit(t.storageKey, key, 'DELETED', toStore, stored);
      this.afterWrite(t, undefined, toStore);
      const answered = {
        ...toStore,
        metadata: { ...toStore.metadata, resourceVersion: old.metadata.resourceVersion },
      };
      return this.answer(answered, t);
    }
    this.store.commit(t.storageKey, key, 'MODIFIED', toStore, stored);
    this.afterWrite(t, toStore);
    // The HTTP layer only serializes the answer, from the cached JSON: no copy needed.
    if (opts.returnStored && toStore.apiVersion === t.apiVersion) return toStore;
    return this.answer(toStore, t);
  }

  // ---------------------------------------------------------------- scale

  getScale(type: TypeRef, key: ObjectKey): KubeObject {
    const t = this.typeOf(type);
    if (!t.scale) throw newNotFound(t.gr, key.name);
    return scaleOf(t, this.get(type, key));
  }

  private updateScale(
    t: ResourceType,
    old: KubeObject,
    scale: KubeObject,
    opts: UpdateOptions & { applied?: KubeObject },
    /** The parent's managedFields after a server-side apply (its own record is skipped then). */
    managedFields?: ManagedFieldsEntry[],
  ): KubeObject {
    if (!t.scale) throw newNotFound(t.gr, old.metadata.name!);
    const rv = scale.metadata?.resourceVersion;
    if (rv && rv !== old.metadata.resourceVersion)
      throw newConflict(
        { group: t.gr.group, resource: `${t.gr.resource}` },
        old.metadata.name!,
        OBJECT_MODIFIED,
      );
    // A Scale's replicas decode into an omitempty int32, so an absent one is 0 (kubectl scale
    // --replicas=0 sends none).
    const replicas =
      scale.kind === 'Scale'
        ? ((scale.spec as { replicas?: unknown } | undefined)?.replicas ?? 0)
        : getPath(scale, t.scale.specReplicasPath);
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
      throw newInvalid({ group: 'autoscaling', kind: 'Scale' }, old.metadata.name!, [
        fieldInvalid('spec.replicas', replicas ?? null, 'must be greater than or equal to 0'),
      ]);
    }
    let record = opts;
    if (!managedFields) {
      // An update through /scale is recorded on the Scale, whose owners of the replicas are the
      // parent's, then written back as ScaleHandler.ToParent writes it: an owner new to the
      // parent gets an entry without a time, one already there keeps its entry as it was.
      const replicasField = replicasFieldOf(t.scale.specReplicasPath);
      const current = scaleOf(t, this.out(old, t));
      current.metadata.managedFields = scaleEntries(
        old.metadata.managedFields ?? [],
        replicasField,
      );
      const nextScale = clone(current);
      (nextScale.spec as Record<string, unknown>).replicas = replicas;
      recordManagedFields(
        nextScale,
        current,
        opts.fieldManager,
        'Update',
        SCALE_API_VERSION,
        this.now(),
        'scale',
        builtinFieldType(SCALE_API_VERSION, 'Scale'),
      );
      managedFields = parentEntries(
        old.metadata.managedFields ?? [],
        nextScale.metadata.managedFields ?? [],
        replicasField,
        t.apiVersion,
      );
      record = { ...opts, applied: scale };
    }
    const next = clone(old);
    setPath(next, t.scale.specReplicasPath, replicas);
    if (managedFields.length) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
    const key = objectKey(old.metadata.namespace, old.metadata.name!);
    const out = this.finishUpdate(t, key, old, next, { ...record, subresource: 'scale' });
    return scaleOf(t, out);
  }

  /**
   * Server-side apply of a Scale to /scale: applied to the Scale the parent shows, with the
   * parent's owners of the replicas as the Scale's (a conflict names them in the Scale's version),
   * then the replicas and their ownership written back to the parent.
   */
  private applyScale(
    t: ResourceType,
    old: KubeObject,
    applied: KubeObject,
    opts: PatchOptions & HandOver,
  ): KubeObject {
    if (!t.scale) throw newNotFound(t.gr, old.metadata.name!);
    if (applied.apiVersion !== SCALE_API_VERSION || applied.kind !== 'Scale') {
      throw newBadRequest(
        `invalid object type: ${String(applied.apiVersion ?? '')}, Kind=${String(applied.kind ?? '')}`,
      );
    }
    checkDecodable(applied);
    const wanted = applied.metadata?.resourceVersion;
    if (wanted && wanted !== old.metadata.resourceVersion) {
      throw newConflict(t.gr, old.metadata.name!, OBJECT_MODIFIED);
    }
    const replicasField = replicasFieldOf(t.scale.specReplicasPath);
    const current = scaleOf(t, this.out(old, t));
    current.metadata.managedFields = scaleEntries(old.metadata.managedFields ?? [], replicasField);
    const next = clone(current);
    applyPatch(
      next,
      current,
      applied,
      opts.fieldManager!,
      SCALE_API_VERSION,
      this.now(),
      !!opts.force,
      'scale',
      builtinFieldType(SCALE_API_VERSION, 'Scale'),
    );
    const managed = parentEntries(
      old.metadata.managedFields ?? [],
      next.metadata.managedFields ?? [],
      replicasField,
      t.apiVersion,
    );
    return this.updateScale(t, old, next, { ...opts, applied }, managed);
  }

  // ---------------------------------------------------------------- patch

  patch(
    type: TypeRef,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts: PatchOptions & SharedWriteOptions = {},
  ): KubeObject {
    const t = this.typeOf(type);
    return this.patchAs(t, key, patch, patchType, opts);
  }

  /** `opts.owned`: the caller hands over `patch` (freshly decoded): the result may keep its values. */
  patchAs(
    t: ResourceType,
    key: ObjectKey,
    patch: unknown,
    patchType: PatchType,
    opts: PatchOptions & HandOver = {},
  ): KubeObject {
    const ns = this.ns(t, key.namespace);
    const skey = objectKey(ns, key.name);
    const old = this.store.get(t.storageKey, skey);
    if (patchType === 'apply') {
      if (!opts.fieldManager) throw fieldManagerRequired();
      if (!isObject(patch))
        throw newBadRequest('error decoding YAML: the applied configuration must be an object');
      const applied = patch as KubeObject;
      if (opts.subresource === 'scale') {
        if (!old) throw newNotFound(t.gr, key.name);
        return this.applyScale(t, old, applied, opts);
      }
      checkApplyTarget(t, applied, ns, key.name);
      if (!old) {
        if (opts.subresource) throw newNotFound(t.gr, key.name);
        const obj = clone(applied);
        obj.apiVersion = obj.apiVersion ?? t.apiVersion;
        obj.kind = obj.kind ?? t.info.kind;
        obj.metadata = {
          ...(obj.metadata ?? {}),
          name: key.name,
          ...(ns ? { namespace: ns } : {}),
        };
        checkAppliedTimes(t, applied);
        return this.createAs(t, obj, {
          dryRun: !!opts.dryRun,
          fieldManager: opts.fieldManager,
          applied,
          ...(opts.user ? { user: opts.user } : {}),
        });
      }
      // As the apiserver: a resourceVersion in the applied configuration is a precondition.
      const wanted = applied.metadata?.resourceVersion;
      if (wanted && wanted !== old.metadata.resourceVersion) {
        throw newConflict(t.gr, key.name, OBJECT_MODIFIED);
      }
      const current = this.out(old, t);
      const next = clone(current);
      applyPatch(
        next,
        current,
        applied,
        opts.fieldManager,
        t.apiVersion,
        this.now(),
        !!opts.force,
        opts.subresource,
        this.fieldsOf(t),
        this.ignoredFields(t, opts.subresource),
      );
      checkAppliedTimes(t, applied);
      return this.updateFromPatch(t, skey, old, next, { ...opts, applied });
    }
    if (!old) throw newNotFound(t.gr, key.name);
    if (opts.subresource === 'scale') {
      const scale = scaleOf(t, this.out(old, t));
      const patched = applyPatchType(
        scale,
        patch,
        patchType === 'strategic' ? 'merge' : patchType,
        t,
      ) as KubeObject;
      return this.updateScale(t, old, patched, opts);
    }
    checkDecodable(patch);
    const current = this.out(old, t);
    const patched = applyPatchType(current, patch, patchType, t);
    checkPatchedTyped(t, patched);
    if (!isObject(patched) || !isObject(patched.metadata))
      throw newBadRequest('the patched object is not a valid Kubernetes object');
    return this.updateFromPatch(t, skey, old, patched as KubeObject, opts);
  }

  private updateFromPatch(
    t: ResourceType,
    _skey: string,
    old: KubeObject,
    patched: KubeObject,
    opts: InternalOptions & HandOver,
  ): KubeObject {
    if (patched.metadata.name !== old.metadata.name) {
      throw newBadRequest(
        `the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${old.metadata.name})`,
      );
    }
    // A patch that sets metadata.resourceVersion is an optimistic lock; otherwise it applies to the current object.
    return this.updateAs(t, patched, { ...opts }, true);
  }

  /**
   * storage.GuaranteedUpdate as a REST handler of its own calls it (pods/binding): `change` edits
   * a copy of the stored object, past the kind's strategies, admission and field manager, under
   * the UID and resourceVersion preconditions given; what `change` throws is the caller's to map.
   * One write, one watch event.
   */
  guaranteedUpdate(
    type: TypeRef,
    key: ObjectKey,
    preconditions: { uid?: string; resourceVersion?: string },
    change: (obj: KubeObject) => void,
    opts: { dryRun?: boolean } = {},
  ): KubeObject {
    const t = this.typeOf(type);
    const skey = objectKey(this.ns(t, key.namespace), key.name);
    const old = this.store.get(t.storageKey, skey);
    if (!old) throw newNotFound(t.gr, key.name);
    checkPreconditions(t, key.name, old, preconditions);
    const next = clone(old);
    change(next);
    if (deepEqual(next, old)) return this.out(old, t);
    if (opts.dryRun) return this.out(next, t);
    next.metadata.resourceVersion = String(this.store.nextRv());
    this.serializable(t, next);
    this.store.commit(t.storageKey, skey, 'MODIFIED', next, old);
    this.afterWrite(t, next);
    return this.out(next, t);
  }

  // ---------------------------------------------------------------- delete

  delete(type: TypeRef, key: ObjectKey, opts: DeleteOptions = {}): KubeObject {
    const t = this.typeOf(type);
    return this.deleteAs(t, key, opts);
  }

  deleteAs(t: ResourceType, key: ObjectKey, opts: DeleteOptions = {}): KubeObject {
    const ns = this.ns(t, key.namespace);
    const skey = objectKey(ns, key.name);
    const old = this.store.get(t.storageKey, skey);
    if (!old) throw newNotFound(t.gr, key.name);
    checkDeletePreconditions(t, key.name, old, opts.preconditions);
    // Mutating admission sees a DELETE too (webhooks are sent no object and may not patch one).
    const attrs: AdmissionAttributes = {
      operation: 'DELETE',
      type: t,
      object: old,
      old,
      dryRun: !!opts.dryRun,
    };
    this.mutate(attrs);
    this.admit(attrs);
    const next = clone(old);
    const md = next.metadata;
    const finalizers = [...(md.finalizers ?? [])];
    // shouldOrphanDependents: a delete naming no policy keeps a finalizer's choice, else takes
    // the kind's default (orphan for v1 ReplicationControllers and batch/v1 Jobs).
    const policy =
      opts.propagationPolicy ??
      (strategyFor(t).orphansByDefault &&
      opts.orphanDependents !== false &&
      !finalizers.includes('orphan') &&
      !finalizers.includes('foregroundDeletion')
        ? 'Orphan'
        : undefined);
    // The GC's finalizers express the propagation policy (orphan wins over foreground, as in the apiserver).
    if (policy === 'Orphan' && !finalizers.includes('orphan')) {
      finalizers.push('orphan');
      const i = finalizers.indexOf('foregroundDeletion');
      if (i >= 0) finalizers.splice(i, 1);
    } else if (
      policy === 'Foreground' &&
      !finalizers.includes('foregroundDeletion') &&
      !finalizers.includes('orphan')
    ) {
      finalizers.push('foregroundDeletion');
    } else if (policy === 'Background') {
      for (const f of ['orphan', 'foregroundDeletion']) {
        const i = finalizers.indexOf(f);
        if (i >= 0 && !old.metadata.deletionTimestamp) finalizers.splice(i, 1);
      }
    }
    // The CRD REST's first delete adds the finalizer that deletes its custom resources first.
    if (isCrd(t) && !old.metadata.deletionTimestamp && !finalizers.includes(CRD_FINALIZER))
      finalizers.push(CRD_FINALIZER);
    if (finalizers.length) md.finalizers = finalizers;
    else delete md.finalizers;
    const graceful = gracefulDeletion(
      old,
      gracePeriodSeconds(t, old, opts),
      this.clock.now(),
      isPod(t),
    );
    if (graceful.set) Object.assign(md, graceful.set);
    const pending = graceful.pending || hasFinalizers(t, next);
    if (pending) {
      // Namespaces and CRDs are deleted by their REST's own Delete, which sets the timestamp
      // alone; the generic store's updateForGracefulDeletion sets a grace period of 0 with it,
      // and bumps a generation that is set, as a graceful deletion (rest.BeforeDelete) does.
      const ownDelete = isNamespace(t) || isCrd(t);
      if (!md.deletionTimestamp) {
        md.deletionTimestamp = this.now();
        if (!ownDelete) md.deletionGracePeriodSeconds = 0;
      }
      if (!old.metadata.deletionTimestamp && md.generation !== undefined && !ownDelete)
        md.generation++;
      if (isNamespace(t))
        (next.status as Record<string, unknown>) = {
          ...(next.status as object),
          phase: 'Terminating',
        };
      if (isCrd(t) && !old.metadata.deletionTimestamp) {
        const status = { ...(next.status as Record<string, unknown>) };
        setCrdCondition(status, CRD_DELETION_PENDING, this.now());
        next.status = status;
      }
      if (deepEqual(next, old)) return this.out(old, t);
      if (opts.dryRun) return this.out(next, t);
      md.resourceVersion = String(this.store.nextRv());
      this.store.commit(t.storageKey, skey, 'MODIFIED', next, old);
      return this.answer(next, t);
    }
    if (graceful.set && md.generation !== undefined) md.generation++;
    if (opts.dryRun) return this.out(graceful.set ? next : old, t);
    let last = old;
    if (graceful.set) {
      // Marked, written, then deleted (updateForGracefulDeletionAndFinalizers): watchers see the
      // marked object modified before it is deleted.
      md.resourceVersion = String(this.store.nextRv());
      this.store.commit(t.storageKey, skey, 'MODIFIED', next, old);
      last = next;
    }
    const gone = graceful.set ? clone(next) : next;
    gone.metadata.resourceVersion = String(this.store.nextRv());
    this.store.commit(t.storageKey, skey, 'DELETED', gone, last);
    this.afterWrite(t, undefined, gone);
    return this.answer(gone, t);
  }

  /**
   * deletecollection: deletes every object the list options select. The answer is the list the
   * deletes were made from, as the registry's DeleteCollection returns it: the objects as listed,
   * at the list's resourceVersion, not as each delete left them.
   */
  deleteCollection(type: TypeRef, listOpts: ListOptions = {}, opts: DeleteOptions = {}): KubeList {
    const t = this.typeOf(type);
    const filter = this.filterFor(t, listOpts);
    const ns = t.info.namespaced && listOpts.namespace ? listOpts.namespace : undefined;
    const victims: KubeObject[] = [];
    for (const [, o] of this.store.scan(t.storageKey, ns)) if (filter(o)) victims.push(o);
    const listed = String(this.store.resourceVersion);
    const items = victims.map((o) => this.out(o, t));
    for (const o of victims) {
      try {
        this.deleteAs(
          t,
          { namespace: o.metadata.namespace, name: o.metadata.name! },
          { ...opts, preconditions: undefined },
        );
      } catch (err) {
        if (!(err instanceof StatusError && err.code === 404)) throw err;
      }
    }
    return {
      apiVersion: t.apiVersion,
      kind: t.info.listKind,
      metadata: { resourceVersion: listed },
      items,
    };
  }

  /** POST pods/NAME/binding for the simulated scheduler (ControllerHost.bindPod). */
  bindPod(key: { namespace: string; name: string }, node: string): void {
    bindPod(
      this,
      key,
      {
        ...BINDING_TYPE,
        metadata: { name: key.name },
        target: { kind: 'Node', name: node },
      } as KubeObject,
      false,
    );
  }

  /** The namespace controller's /finalize: drops a spec.finalizers entry of a Namespace. */
  finalizeNamespace(name: string, finalizer: string): void {
    const cur = this.peek({ apiVersion: 'v1', kind: 'Namespace' }, { name });
    const spec = (cur?.spec ?? {}) as { finalizers?: string[] };
    if (cur)
      this.setNamespaceFinalizers(
        name,
        (spec.finalizers ?? []).filter((f) => f !== finalizer),
      );
  }

  /**
   * PUT namespaces/NAME/finalize (the namespace registry's FinalizeREST): spec.finalizers becomes
   * the given list, nothing else changes; a stale resourceVersion is the update's 409. A namespace
   * being deleted with no finalizer left is deleted by that update (ShouldDeleteDuringUpdate),
   * and its last state is the answer.
   */
  setNamespaceFinalizers(name: string, finalizers: string[], resourceVersion?: string): KubeObject {
    const t = this.typeOf({ apiVersion: 'v1', kind: 'Namespace' });
    const key = objectKey(undefined, name);
    const old = this.store.get(t.storageKey, key);
    if (!old) throw newNotFound(t.gr, name);
    if (resourceVersion && resourceVersion !== old.metadata.resourceVersion)
      throw newConflict(t.gr, name, OBJECT_MODIFIED);
    const next = clone(old);
    const spec = (next.spec ?? {}) as { finalizers?: string[] };
    if (finalizers.length) spec.finalizers = [...new Set(finalizers)];
    else delete spec.finalizers;
    next.spec = spec;
    if (deepEqual(next, old)) return this.out(old, t);
    next.metadata.resourceVersion = String(this.store.nextRv());
    if (next.metadata.deletionTimestamp && !hasFinalizers(t, next))
      this.store.commit(t.storageKey, key, 'DELETED', next, old);
    else this.store.commit(t.storageKey, key, 'MODIFIED', next, old);
    return this.out(next, t);
  }

  // ---------------------------------------------------------------- events

  recordEvent(
    involved: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    source?: string,
  ): void {
    this.events.record(involved, type, reason, message, source);
  }
}

/** The apiVersion objects of `t` are stored at: Events of both groups are stored as core/v1. */
/**
 * The cacher's GetList parses the resourceVersion with the APIObjectVersioner (strconv.ParseUint)
 * and refuses one it cannot parse with a 400 carrying the versioner's field error.
 */
function checkListResourceVersion(rv: string): void {
  if (/^\d+$/.test(rv) && BigInt(rv) < 2n ** 64n) return;
  const why = /^\d+$/.test(rv) ? 'value out of range' : 'invalid syntax';
  throw newBadRequest(
    `invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(rv)}: strconv.ParseUint: parsing ${JSON.stringify(rv)}: ${why}`,
  );
}

/**
 * Whether a kind is validated by k8s.io/kubernetes' own pkg/apis validation (kube's rules on top
 * of apimachinery's), rather than by apiextensions-apiserver (CRDs, custom resources) or
 * kube-aggregator (APIServices), which apply apimachinery's alone.
 */
function kubeValidated(t: ResourceType): boolean {
  return (
    !t.crd && t.info.group !== 'apiextensions.k8s.io' && t.info.group !== 'apiregistration.k8s.io'
  );
}

function storedApiVersion(t: ResourceType): string {
  return t.info.kind === 'Event' && t.info.group === 'events.k8s.io' ? 'v1' : t.apiVersion;
}

/**
 * sigs.k8s.io/json's strict decoding errors under the request's fieldValidation (Strict refuses
 * with the decoder's message, Warn reports them): `duplicates`, the fields the body gave twice
 * (only the decode of the body has them), then the fields its Go type does not know.
 */
function checkUnknownFields(
  t: ResourceType,
  unknown: string[] | void,
  opts: WriteOptions,
  duplicates: readonly string[] = [],
): void {
  const errs = [
    ...duplicates.map((f) => `duplicate field "${f}"`),
    ...(unknown ?? []).map((f) => `unknown field "${f}"`),
  ];
  if (!errs.length) return;
  const mode = opts.fieldValidation ?? 'Warn';
  if (mode === 'Strict') {
    throw newBadRequest(
      `${t.info.kind} in version "${t.info.version}" cannot be handled as a ${t.info.kind}: strict decoding error: ${errs.join(', ')}`,
    );
  }
  if (mode === 'Warn') opts.warnings?.push(...errs);
}

/** storage.Preconditions.Check: a UID or resourceVersion that is not the stored one is a 409. */
function checkPreconditions(
  t: ResourceType,
  name: string,
  old: KubeObject,
  pre: { uid?: string; resourceVersion?: string } | undefined,
): void {
  if (pre?.uid && pre.uid !== old.metadata.uid) {
    throw newConflict(
      t.gr,
      name,
      `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid}`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw newConflict(
      t.gr,
      name,
      `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${old.metadata.resourceVersion}`,
    );
  }
}

/**
 * rest.BeforeDelete's early check of a delete's preconditions: a Conflict on the object's kind
 * (`ConfigMap`, `Deployment.apps`), not its resource, worded as BeforeDelete words it.
 */
function checkDeletePreconditions(
  t: ResourceType,
  name: string,
  old: KubeObject,
  pre: { uid?: string; resourceVersion?: string } | undefined,
): void {
  const kind = { group: t.info.group, resource: t.info.kind };
  if (pre?.uid && pre.uid !== old.metadata.uid) {
    throw newConflict(
      kind,
      name,
      `the UID in the precondition (${pre.uid}) does not match the UID in record (${old.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    );
  }
  if (pre?.resourceVersion && pre.resourceVersion !== old.metadata.resourceVersion) {
    throw newConflict(
      kind,
      name,
      `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
  }
}

/**
 * What the apply handler checks of an apply configuration before merging it: its version is the
 * URL's (fieldmanager), its kind, name and namespace are the URL's (checkName), and it fits the
 * type (the typed conversion of structured-merge-diff).
 */
function checkApplyTarget(
  t: ResourceType,
  applied: KubeObject,
  namespace: string | undefined,
  name: string,
): void {
  checkDecodable(applied);
  if (applied.apiVersion !== t.apiVersion) {
    throw newBadRequest(
      `Incorrect version specified in apply patch. Specified patch version: ${String(applied.apiVersion ?? '')}, expected: ${t.apiVersion}`,
    );
  }
  if (applied.kind !== undefined && applied.kind !== t.info.kind) {
    throw newBadRequest(
      `the kind of the object (${String(applied.kind)}) does not match the kind of the resource on the URL (${t.info.kind})`,
    );
  }
  checkAppliedTyped(t, applied);
  const md = isObject(applied.metadata) ? applied.metadata : {};
  if (md.name !== undefined && md.name !== name) {
    throw newBadRequest(
      `the name of the object (${String(md.name)}) does not match the name on the URL (${name})`,
    );
  }
  if (namespace && md.namespace && md.namespace !== namespace) {
    throw newBadRequest(
      `the namespace of the object (${String(md.namespace)}) does not match the namespace on the request (${namespace})`,
    );
  }
}

function setOrDelete(o: object, k: string, v: unknown): void {
  const r = o as Record<string, unknown>;
  if (v === undefined) delete r[k];
  else r[k] = v;
}

function isCoreService(t: ResourceType): boolean {
  return t.info.kind === 'Service' && t.info.group === '';
}

function hasFinalizers(t: ResourceType, o: KubeObject): boolean {
  if ((o.metadata.finalizers ?? []).length) return true;
  if (t.info.kind === 'Namespace' && t.info.group === '') {
    const f = (o.spec as { finalizers?: string[] } | undefined)?.finalizers;
    return !!f && f.length > 0;
  }
  return false;
}

/** Whether a write changes what generation tracks: everything but metadata (and status, when it is a subresource). */
function specChanged(t: ResourceType, a: KubeObject, b: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const c: Record<string, unknown> = { ...o };
    delete c.metadata;
    delete c.apiVersion;
    delete c.kind;
    if (t.statusSubresource) delete c.status;
    return c;
  };
  return !deepEqual(strip(a), strip(b));
}

function withoutManagedTimes(o: KubeObject): KubeObject {
  const mf = o.metadata.managedFields;
  if (!mf) return o;
  return { ...o, metadata: { ...o.metadata, managedFields: mf.map((e) => ({ ...e, time: '' })) } };
}

function applyPatchType(
  current: KubeObject,
  patch: unknown,
  patchType: PatchType,
  t: ResourceType,
): unknown {
  switch (patchType) {
    case 'merge':
      return mergePatch(current, patch);
    case 'json':
      return jsonPatch(current, patch);
    case 'strategic':
      if (t.crd) {
        throw new StatusError({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message:
            'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
          reason: 'UnsupportedMediaType',
          code: 415,
        });
      }
      return strategicMergePatch(current, patch, kindShape(current.apiVersion, current.kind));
    default:
      throw newBadRequest(`unsupported patch type: ${String(patchType)}`);
  }
}

function getPath(o: unknown, path: string): unknown {
  let cur = o;
  for (const p of path.replace(/^\./, '').split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

function setPath(o: Record<string, unknown>, path: string, v: unknown): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = o;
  for (const p of parts.slice(0, -1)) {
    if (!isObject(cur[p])) cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  cur[parts[parts.length - 1]] = v;
}

/** The autoscaling/v1 Scale view of an object with a scale subresource. */
/**
 * The kind an invalid object's error names: its own, but an events.k8s.io Event is refused as a
 * core Event, since that API is served by core's Event storage (whose errors name
 * `api.Kind("Event")`).
 */
function invalidKindOf(t: ResourceType): { group: string; kind: string } {
  if (t.info.group === 'events.k8s.io' && t.info.kind === 'Event')
    return { group: '', kind: 'Event' };
  return { group: t.info.group, kind: t.info.kind };
}

function scaleOf(t: ResourceType, o: KubeObject): KubeObject {
  const s = t.scale!;
  const replicas = getPath(o, s.specReplicasPath);
  const statusReplicas = getPath(o, s.statusReplicasPath);
  const selector = s.labelSelectorPath ? getPath(o, s.labelSelectorPath) : undefined;
  let sel = typeof selector === 'string' ? selector : undefined;
  if (!sel && t.info.group === 'apps') {
    const ml = (getPath(o, '.spec.selector.matchLabels') ?? {}) as Record<string, string>;
    sel = Object.entries(ml)
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
  }
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: o.metadata.name,
      ...(o.metadata.namespace ? { namespace: o.metadata.namespace } : {}),
      uid: o.metadata.uid,
      resourceVersion: o.metadata.resourceVersion,
      creationTimestamp: o.metadata.creationTimestamp,
    },
    // ScaleSpec.replicas is an omitempty int32: zero replicas are written as an empty spec.
    spec: typeof replicas === 'number' && replicas !== 0 ? { replicas } : {},
    status: {
      replicas: typeof statusReplicas === 'number' ? statusReplicas : 0,
      ...(sel ? { selector: sel } : {}),
    },
  };
}

/** storage.EncodeContinue: the token's JSON, unpadded URL-safe base64. */
function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

/**
 * storage.DecodeContinue, its errors worded as the storage layer words them (`invalid continue
 * token: continue key is not valid: ...`, the inner one base64's or encoding/json's). Unlike
 * upstream, a start key that path.Clean would change is not refused: the fake's keys are not paths.
 */
function decodeContinue(tok: string): { rv: number; start: string } {
  const invalid = (why: string) => newBadRequest(`invalid continue token: ${why}`);
  const generic = (err: string) => invalid(`continue key is not valid: ${err}`);
  const bad = /[^A-Za-z0-9_-]/.exec(tok);
  if (bad) throw generic(`illegal base64 data at input byte ${bad.index}`);
  if (tok.length % 4 === 1) throw generic(`illegal base64 data at input byte ${tok.length - 1}`);
  const data = Buffer.from(tok, 'base64url');
  const syntax = goJsonSyntaxError(data);
  if (syntax) throw generic(syntax);
  const o = JSON.parse(data.toString('utf8')) as unknown;
  if (!isObject(o))
    throw generic(
      `json: cannot unmarshal ${jsonKind(o)} into Go value of type storage.continueToken`,
    );
  const field = (name: string, goType: string, ok: (v: unknown) => boolean): void => {
    const v = o[name];
    if (v !== undefined && v !== null && !ok(v))
      throw generic(
        `json: cannot unmarshal ${typeof v === 'number' ? 'number' : jsonKind(v)} into Go struct field continueToken.${name} of type ${goType}`,
      );
  };
  field('v', 'string', (v) => typeof v === 'string');
  field('rv', 'int64', (v) => typeof v === 'number' && Number.isInteger(v));
  field('start', 'string', (v) => typeof v === 'string');
  const { v, rv, start } = o as { v?: string; rv?: number; start?: string };
  if (v !== 'meta.k8s.io/v1')
    throw invalid(
      `continue key is not valid: server does not recognize this encoded version ${v ?? ''}`,
    );
  if (!rv)
    throw invalid(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  if (!start)
    throw invalid('continue key is not valid: encoded start key empty (version meta.k8s.io/v1)');
  return { rv, start };
}

export { newForbidden };

function isPod(t: ResourceType): boolean {
  return t.info.kind === 'Pod' && t.info.group === '';
}

function isCrd(t: ResourceType): boolean {
  return t.info.kind === 'CustomResourceDefinition' && t.info.group === 'apiextensions.k8s.io';
}

function isNamespace(t: ResourceType): boolean {
  return t.info.kind === 'Namespace' && t.info.group === '';
}
