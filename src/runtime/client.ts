/**
 * The client a reconcile gets as ctx.client, instrumented: every call becomes a phase of the
 * trace (read from the cache; diff + write or diff + status to the API server), passes the
 * stepper's gates before and after it happens, and reports the resourceVersion it produced so the
 * controller can tell when a later watch event was caused by this controller's own write.
 */
import type {
  DeleteOptions,
  KubeObject,
  ObjectKey,
  PatchType,
  TypeRef,
} from '../cluster/apimachinery/types';
import type { Clock } from '../util/clock';
import type {
  Client,
  EventRecorder,
  ListOpts,
  Logger,
  ObjectKeyLike,
  ObjectLike,
  ReconcileContext,
  StatusWriter,
} from './api';
import { isPromise, type ApiServer, type MaybePromise } from './apiserver';
import type { Cache } from './cache';
import { detachValues, intendedDiff, type WriteVerb } from './intendeddiff';
import type { ApiCall, Phase, PhaseRecord, ReconcileTrace, Verb } from './trace';
import { sameChanges, writtenDiff } from './trace';
import { copyOfDecoded } from '../cluster/apimachinery/clone';
import { faultOf } from '../cluster/faults';
import { webhookCallsOf } from './webhookapiserver';

/** The stepper as a run sees it: whether anything could hold, and the gate itself. */
export interface PhaseGate {
  readonly active: boolean;
  gate(trace: ReconcileTrace, rec: PhaseRecord, when: 'enter' | 'exit'): Promise<void>;
  /** Wall-clock ms spent holding so far: time the hang watchdog does not count. */
  heldMs(): number;
}

/** What a ReconcileRun needs from its controller: the same for every run of it (see `log`). */
export interface RunDeps {
  api: ApiServer;
  cache: Cache;
  clock: Clock;
  resourceName(type: TypeRef): string;
  /** Called for every phase record as it is added (trace streaming). */
  onPhase(trace: ReconcileTrace, rec: PhaseRecord): void;
  /** The stepper's gate, or undefined when there is no stepper. */
  gate?: PhaseGate;
  /** A successful write produced this resourceVersion. */
  onWrite(trace: ReconcileTrace, call: ApiCall): void;
  /** Keep copies of the objects before/after each write in the trace (default true). */
  recordObjects?: boolean;
  /** ctx.recorder and ctx.now: the same for every run, so made once. */
  recorder: EventRecorder;
  now(): number;
}

function errorInfo(err: unknown): {
  code: number;
  reason?: string;
  message: string;
  fault?: string;
} {
  const e = err as { code?: unknown; reason?: unknown; message?: unknown };
  const fault = faultOf(err);
  return {
    ...(fault !== undefined ? { fault } : {}),
    code: typeof e?.code === 'number' ? e.code : 500,
    ...(typeof e?.reason === 'string' ? { reason: e.reason } : {}),
    message: typeof e?.message === 'string' ? e.message : String(err),
  };
}

function typeOf(obj: ObjectLike): TypeRef {
  return { apiVersion: obj.apiVersion, kind: obj.kind };
}

function keyOf(obj: ObjectLike): ObjectKey {
  return { namespace: obj.metadata.namespace, name: obj.metadata.name ?? '' };
}

/** What write() asks of the server: the answer may be the stored object (it is copied here). */
const SHARED_WRITE = Object.freeze({ returnStored: true });
const SHARED_STATUS_WRITE = Object.freeze({ returnStored: true, subresource: 'status' as const });

/** Go's client decodes the response into the object passed; do the same. */
function assignInPlace(target: object, source: object): void {
  // Only keys the answer lacks are deleted: deleting every key first would turn the object into a
  // slow dictionary-mode object.
  const t = target as Record<string, unknown>;
  for (const k of Object.keys(t)) if (!Object.prototype.hasOwnProperty.call(source, k)) delete t[k];
  Object.assign(target, source);
}

export class ReconcileRun {
  readonly client: Client;
  /**
   * Set when the controller gave up on this reconcile (the hang watchdog): the reconciler may
   * still be running, but its trace is closed. Like a Go client whose context is done, its calls
   * fail from then on, and nothing more of it is recorded in the closed trace.
   */
  private abandonedBy: Error | undefined;

  constructor(
    readonly trace: ReconcileTrace,
    private readonly deps: RunDeps,
    /** The reconcile's own logger (stamped with its reconcileID). */
    private readonly log: Logger,
  ) {
    this.client = new RunClient(this);
  }

  context(): ReconcileContext {
    const { recorder, now } = this.deps;
    return {
      client: this.client,
      log: this.log,
      recorder,
      now,
      reconcileID: this.trace.reconcileID,
    };
  }

  /** The controller gave up on this reconcile: every later call of its client fails with `why`. */
  abandon(why: Error): void {
    this.abandonedBy = new Error(
      `${why.message}; the reconcile's context is done, so this call was not completed`,
    );
  }

  get abandoned(): boolean {
    return this.abandonedBy !== undefined;
  }

  /** Throws for a call of an abandoned reconcile (at its start, and after each wait inside it). */
  private live(): void {
    if (this.abandonedBy) throw this.abandonedBy;
  }

  /** A call's gate: as gate(), then the call goes on only if the reconcile was not abandoned meanwhile. */
  private async callGate(rec: PhaseRecord, when: 'enter' | 'exit'): Promise<void> {
    await this.gate(rec, when);
    this.live();
  }

  /** Adds a phase record to the trace and streams it. */
  addPhase(rec: PhaseRecord): PhaseRecord {
    this.trace.phases.push(rec);
    this.deps.onPhase(this.trace, rec);
    return rec;
  }

  /**
   * Whether a gate could hold now. Call sites await `gate()` only then: a bulk run passes fourteen
   * gates per reconcile, and an await of nothing still costs a promise and a microtask each.
   */
  get gated(): boolean {
    return this.deps.gate?.active === true;
  }

  async gate(rec: PhaseRecord, when: 'enter' | 'exit'): Promise<void> {
    if (this.deps.gate?.active) await this.deps.gate.gate(this.trace, rec, when);
  }

  private baseCall(
    verb: Verb,
    type: TypeRef,
    namespace: string | undefined,
    name: string,
    subresource: string,
  ): ApiCall {
    return {
      verb,
      resource: this.deps.resourceName(type),
      apiVersion: type.apiVersion,
      kind: type.kind,
      namespace: namespace ?? '',
      name,
      subresource,
      code: 0,
      source: verb === 'get' || verb === 'list' ? 'cache' : 'server',
      at: this.deps.clock.now(),
      // Set once the call is answered, declared here: fields added to a literal later go to a
      // second object, which every young collection copies too (a bulk run keeps thousands).
      resourceVersion: undefined,
      wallMs: undefined,
    };
  }

  /** A Get from the cache, as a read phase (ctx.client's, through RunClient). */
  async read(type: TypeRef, key: ObjectKeyLike): Promise<KubeObject> {
    this.live();
    const call = this.baseCall('get', type, key.namespace, key.name, '');
    const rec = this.addPhase({ phase: 'read', at: call.at, call });
    if (this.gated) await this.callGate(rec, 'enter');
    call.at = this.deps.clock.now();
    const started = performance.now();
    let result: KubeObject | undefined;
    let error: unknown;
    try {
      // Like controller-runtime's cache, the first read of a type starts its informer and waits
      // for it to sync (a remote list); the in-process informer is synced at once.
      const syncing = this.deps.cache.waitForSync(type);
      if (syncing) await syncing;
      result = this.deps.cache.get(type, { namespace: key.namespace, name: key.name });
      call.code = 200;
      call.resourceVersion = result.metadata.resourceVersion;
    } catch (err) {
      error = err;
      Object.assign(call, errorInfo(err));
    }
    call.wallMs = performance.now() - started;
    this.live(); // an answer that came after the reconcile was abandoned is not its to record
    this.trace.calls.push(call);
    if (this.gated) await this.callGate(rec, 'exit');
    if (error !== undefined) throw error;
    return result!;
  }

  /** A List from the cache, as a read phase (ctx.client's, through RunClient). */
  async list(type: TypeRef, opts: ListOpts = {}): Promise<{ items: KubeObject[] }> {
    this.live();
    const call = this.baseCall('list', type, opts.namespace, '', '');
    const sel = [opts.labelSelector, opts.fieldSelector].filter(Boolean).join(' ');
    if (sel) call.selector = sel;
    const rec = this.addPhase({ phase: 'read', at: call.at, call });
    if (this.gated) await this.callGate(rec, 'enter');
    const started = performance.now();
    let result: { items: KubeObject[] } | undefined;
    let error: unknown;
    try {
      const syncing = this.deps.cache.waitForSync(type);
      if (syncing) await syncing;
      result = this.deps.cache.list(type, opts);
      call.code = 200;
      call.items = result.items.length;
    } catch (err) {
      error = err;
      Object.assign(call, errorInfo(err));
    }
    call.wallMs = performance.now() - started;
    this.live(); // an answer that came after the reconcile was abandoned is not its to record
    this.trace.calls.push(call);
    if (this.gated) await this.callGate(rec, 'exit');
    if (error !== undefined) throw error;
    return result!;
  }

  /**
   * The object as the server has it now, without recording a call (for the diff phase). A remote
   * server has no peek: the diff is then taken against the informer's copy when the type is
   * watched (no extra round trip per write), else against a GET.
   */
  private serverObject(type: TypeRef, key: ObjectKey): MaybePromise<KubeObject | undefined> {
    const api = this.deps.api;
    try {
      if (api.peek) return api.peek(type, key);
      const cached = this.deps.cache.peekIfWatched(type, key);
      if (cached !== null) return cached;
      const got = api.get(type, key);
      return isPromise(got) ? got.catch(() => undefined) : got;
    } catch {
      return undefined;
    }
  }

  /** A write to the API server, as a diff phase then a write or status phase (through RunClient). */
  async write<T extends ObjectLike>(
    verb: WriteVerb,
    obj: T,
    subresource: '' | 'status',
    patch?: unknown,
    patchType: PatchType = 'merge',
    deleteOpts?: DeleteOptions,
  ): Promise<T> {
    this.live();
    const type = typeOf(obj);
    const key = keyOf(obj);
    const phase: Phase = subresource === 'status' ? 'status' : 'write';
    const record = this.deps.recordObjects !== false;
    // The stored object (the fake cluster's, or the informer's) is never mutated in place — a write
    // replaces it — so the diff and the trace's `before` can share it without a copy.
    const peeked = verb === 'create' ? undefined : this.serverObject(type, key);
    let before: KubeObject | undefined;
    if (isPromise(peeked)) {
      before = await peeked;
      this.live();
    } else before = peeked;

    // diff: what this write would change, shown before it happens.
    const intended = intendedDiff({ verb, subresource, before, obj, patch, patchType });

    const call = this.baseCall(verb, type, key.namespace, key.name, subresource);
    const diffRec = this.addPhase(
      before && record
        ? { phase: 'diff', at: call.at, call, diff: intended, before }
        : { phase: 'diff', at: call.at, call, diff: intended },
    );
    if (this.gated) await this.callGate(diffRec, 'enter');
    if (this.gated) await this.callGate(diffRec, 'exit');

    // Its objects (or, without them, its diff) are set once the write is answered: declared now,
    // as baseCall's fields.
    const rec = this.addPhase({
      phase,
      at: this.deps.clock.now(),
      call,
      before: undefined,
      after: undefined,
      diff: undefined,
    });
    if (this.gated) await this.callGate(rec, 'enter');
    call.at = this.deps.clock.now();
    const started = performance.now();
    let result: KubeObject | undefined;
    let error: unknown;
    let pending: MaybePromise<unknown> | undefined;
    try {
      // A plain value is used as is, never awaited: `await` would defer to a microtask, and the
      // in-process cluster queues the write's watch event as a microtask — the write's result must
      // be seen first so that the event is recognised as caused by this write.
      pending = this.send(verb, obj, type, key, subresource, patch, patchType, deleteOpts);
      call.code = verb === 'create' ? 201 : 200;
      let done: unknown = pending;
      if (isPromise(pending)) {
        // Only a delayed answer (a promise) can carry the fault that delayed it.
        const delayedBy = faultOf(pending);
        if (delayedBy !== undefined) call.fault = delayedBy;
        done = await pending;
      }
      if (verb !== 'delete') result = done as KubeObject;
    } catch (err) {
      error = err;
      Object.assign(call, errorInfo(err));
    }
    call.wallMs = performance.now() - started;
    // The admission webhooks the write met (in-process through WebhookApiServer).
    const webhooks = webhookCallsOf(pending);
    if (webhooks?.length) call.webhooks = webhooks;
    if (result) {
      call.resourceVersion = result.metadata.resourceVersion;
      if (before && before.metadata.resourceVersion === result.metadata.resourceVersion) {
        call.noop = true;
      }
      // The answer is never the caller's (it gets a copy below): the trace keeps it and diffs
      // against it as it is. In-process it is the stored object itself (send's returnStored) —
      // already in memory, so nothing is copied or kept twice.
      if (record) {
        rec.before = before;
        rec.after = result;
      } else rec.diff = sameChanges(intended, writtenDiff(phase, before, result));
    }
    // The caller keeps its object after a failure and may change it for another try.
    if (error !== undefined) detachValues(intended);
    this.live(); // an answer that came after the reconcile was abandoned is not its to record
    this.trace.calls.push(call);
    if (!error && !call.noop) this.deps.onWrite(this.trace, call);
    if (this.gated) await this.callGate(rec, 'exit');
    if (error !== undefined) throw error;
    // Go's client decodes the answer into the object passed: a copy of it, now the caller's (one
    // parse when the answer is a stored object whose text the cluster keeps).
    if (result) assignInPlace(obj, copyOfDecoded(result));
    return obj;
  }

  /**
   * The write itself: the API server's call for `verb`, its answer as the server gives it — the
   * stored object itself when the server can share it (read-only: write() copies it for the caller).
   */
  private send(
    verb: WriteVerb,
    obj: ObjectLike,
    type: TypeRef,
    key: ObjectKey,
    subresource: '' | 'status',
    patch: unknown,
    patchType: PatchType,
    deleteOpts: DeleteOptions | undefined,
  ): MaybePromise<unknown> {
    const api = this.deps.api;
    const body = obj as KubeObject; // the API server copies its input
    const opts = subresource === 'status' ? SHARED_STATUS_WRITE : SHARED_WRITE;
    switch (verb) {
      case 'create':
        return api.create(body, SHARED_WRITE);
      case 'update':
        return api.update(body, opts);
      case 'patch':
        return api.patch(type, key, patch, patchType, opts);
      case 'delete':
        return api.delete(type, key, deleteOpts);
    }
  }
}

/**
 * ctx.client: the run's calls with their methods on the prototype, not closures made for each
 * reconcile (a bulk run makes tens of thousands of runs). Like any client object, its methods are
 * called on it (`ctx.client.get(…)`).
 */
class RunClient implements Client {
  private statusWriter: StatusWriter | undefined;

  constructor(private readonly run: ReconcileRun) {}

  get(type: TypeRef, key: ObjectKeyLike): Promise<never> {
    return this.run.read(type, key) as Promise<never>;
  }

  list(type: TypeRef, opts?: ListOpts): Promise<{ items: never[] }> {
    return this.run.list(type, opts) as Promise<{ items: never[] }>;
  }

  create<T extends ObjectLike>(obj: T): Promise<T> {
    return this.run.write('create', obj, '');
  }

  update<T extends ObjectLike>(obj: T): Promise<T> {
    return this.run.write('update', obj, '');
  }

  patch<T extends ObjectLike>(obj: T, patch: unknown, patchType?: PatchType): Promise<T> {
    return this.run.write('patch', obj, '', patch, patchType);
  }

  async delete(obj: ObjectLike, opts?: DeleteOptions): Promise<void> {
    await this.run.write('delete', obj, '', undefined, undefined, opts);
  }

  status(): StatusWriter {
    return (this.statusWriter ??= new RunStatusWriter(this.run));
  }
}

class RunStatusWriter implements StatusWriter {
  constructor(private readonly run: ReconcileRun) {}

  update<T extends ObjectLike>(obj: T): Promise<T> {
    return this.run.write('update', obj, 'status');
  }

  patch<T extends ObjectLike>(obj: T, patch: unknown, patchType?: PatchType): Promise<T> {
    return this.run.write('patch', obj, 'status', patch, patchType);
  }
}
