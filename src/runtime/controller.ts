/**
 * controller-runtime's pkg/internal/controller: watches feed a rate-limited work queue of
 * `namespace/name` keys; maxConcurrentReconciles workers take keys and call the reconciler; the
 * Result/error decides what the queue does next, exactly as reconcileHandler does:
 *   error (not terminal) → addRateLimited   (a Result returned with it is ignored, with a warning)
 *   TerminalError        → nothing (no requeue, counted as an error)
 *   requeueAfter > 0     → forget + addAfter(requeueAfter)
 *   requeue              → addRateLimited
 *   success              → forget
 * A throw is caught and counted as an error (RecoverPanic). On top of upstream, the clock is
 * frozen while a reconcile runs (a reconcile takes no virtual time, so a run is repeatable
 * whatever the host speed), and the controller calls out to three observers of its own files:
 * the tracer (reconciletracer.ts: each reconcile traced phase by phase), the log
 * (controllerlog.ts) and the hot-loop guard (hotloopguard.ts: a key that keeps re-triggering
 * itself is suspended instead of spinning).
 */
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import type { Clock } from '../util/clock';
import type { ObjectLike, ReconcileContext } from './api';
import { resourceName, type ApiServer } from './apiserver';
import type { Cache } from './cache';
import { ReconcileRun, type RunDeps } from './client';
import { ControllerLog, type LogRecord } from './controllerlog';
import { TypeMap } from './typemap';
import type { WaitReason } from './delayingqueue';
import { Emitter } from './events';
import type { HotLoopOptions, HotLoopReport } from './hotloop';
import { HotLoopGuard } from './hotloopguard';
import type { Enqueue, EventHandler } from './handler';
import { ControllerMetrics, Registry, WorkqueueMetrics } from './metrics';
import { evaluate, type EventKind, type Predicate } from './predicate';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimiter';
import { RateLimitingQueue } from './ratelimitingqueue';
import { ReconcileTracer, toTraceError, type Writer } from './reconciletracer';
import {
  isTerminalError,
  normalizeResult,
  parseRequestKey,
  requestKey,
  validateResult,
  type Request,
  type Result,
} from './reconcile';
import type { Stepper } from './stepper';
import {
  warn,
  type NextAction,
  type Outcome,
  type PhaseRecord,
  type ReconcileTrace,
  type Trigger,
} from './trace';

export type { HotLoopOptions, HotLoopReport, LogRecord };

export type ReconcileFunc = (ctx: ReconcileContext, req: Request) => Promise<unknown> | unknown;

export interface ControllerOptions {
  name: string;
  api: ApiServer;
  cache: Cache;
  clock: Clock;
  reconcile: ReconcileFunc;
  maxConcurrentReconciles?: number;
  rateLimiter?: RateLimiter<string>;
  registry?: Registry;
  stepper?: Stepper;
  /** Wall-clock ms after which a reconcile that has not returned is abandoned as hung (0 = never). */
  hangTimeoutMs?: number;
  hotLoop?: HotLoopOptions;
  /** Traces kept in memory (oldest dropped first). */
  maxTraces?: number;
  /** Keep before/after copies of written objects in traces (default true; off for bulk runs). */
  recordObjects?: boolean;
  recordEvent?(obj: ObjectLike, type: string, reason: string, message: string): void;
}

export interface QueueSnapshot {
  controller: string;
  at: number;
  queued: Array<{ key: string; since?: number }>;
  waiting: Array<{ key: string; readyAt: number; reason: WaitReason }>;
  processing: Array<{ key: string; since?: number; worker?: number }>;
  retries: Array<{ key: string; count: number }>;
  suspended: string[];
  workers: number;
  activeWorkers: number;
}

export interface ControllerEvents {
  enqueue: { key: string; trigger: Trigger };
  queueChange: { change: string; key: string | undefined };
  reconcileStart: ReconcileTrace;
  phase: { trace: ReconcileTrace; phase: PhaseRecord };
  reconcileEnd: ReconcileTrace;
  log: LogRecord;
  hotLoop: HotLoopReport;
}

interface Watch {
  type: TypeRef;
  handler: EventHandler;
  predicates: Predicate[];
}

/** controller_runtime_reconcile_total's results. */
type CountedResult = 'success' | 'error' | 'requeue' | 'requeue_after';

const PROGRAMMING_ERRORS = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError']);

/** The usual next action, shared (frozen): every trace keeps its own reference to it. */
const FORGET: NextAction = Object.freeze({ action: 'forget' });

export class Controller extends Emitter<ControllerEvents> {
  readonly name: string;
  /** Keys, each with the triggers that queued it (see WorkQueue.add). */
  readonly queue: RateLimitingQueue<string, Trigger>;
  readonly metrics: ControllerMetrics;
  readonly registry: Registry;
  readonly maxConcurrentReconciles: number;
  readonly traces: ReconcileTrace[];
  readonly logs: LogRecord[];
  readonly hotLoops: HotLoopReport[];

  private readonly watches: Watch[] = [];
  private started = false;
  private active = 0;
  private workers: Promise<void>[] = [];
  /** The key each worker holds (index: worker id), for the snapshot. */
  private readonly workerItems: Array<string | undefined> = [];
  /**
   * Every key ever queued, for the snapshot's retries: kept only for a rate limiter that cannot
   * list the items it tracks (a custom one), since it grows with every object ever reconciled.
   */
  private readonly knownKeys: Set<string> | undefined;
  private readonly tracer: ReconcileTracer;
  private readonly log: ControllerLog;
  private readonly guard: HotLoopGuard;
  private readonly resourceNames = new TypeMap<string>();
  private readonly labels: { controller: string };
  private readonly resultLabels: Record<CountedResult, { controller: string; result: string }>;
  private inFlight = 0;
  private stopRequested: () => void = () => {};
  /** Resolves (false) when stop() is called: workers still waiting for the caches give up. */
  private readonly stopping = new Promise<false>((r) => (this.stopRequested = () => r(false)));
  private busyThaw: (() => void) | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: ControllerOptions) {
    super();
    this.name = opts.name;
    this.tracer = new ReconcileTracer(this.name, opts.clock, opts.maxTraces);
    this.log = new ControllerLog(
      this.name,
      () => opts.clock.now(),
      (rec) => this.emit('log', rec),
    );
    this.guard = new HotLoopGuard(opts.hotLoop);
    this.traces = this.tracer.traces;
    this.logs = this.log.records;
    this.hotLoops = this.guard.reports;
    this.labels = { controller: this.name };
    this.registry = opts.registry ?? new Registry();
    this.metrics = new ControllerMetrics(this.registry);
    this.maxConcurrentReconciles = Math.max(1, opts.maxConcurrentReconciles ?? 1);
    this.queue = new RateLimitingQueue<string, Trigger>(
      { clock: opts.clock, name: this.name, metrics: new WorkqueueMetrics(this.registry) },
      opts.rateLimiter ?? defaultControllerRateLimiter<string>(opts.clock),
    );
    this.knownKeys = this.queue.retrying() === undefined ? new Set() : undefined;
    this.queue.onChange((change, key) => {
      // A get moves an item from queued to processing, a forget or a wait leaves both alone:
      // neither can change whether the controller is busy.
      if (change !== 'get' && change !== 'forget' && change !== 'wait') this.updateBusy();
      if (this.has('queueChange')) this.emit('queueChange', { change, key });
    });
    // One labels object per result, made once: the metrics' series cache then hits on the hot
    // path (a lookup by the result's name cost a hash per reconcile).
    this.resultLabels = {
      success: { ...this.labels, result: 'success' },
      error: { ...this.labels, result: 'error' },
      requeue: { ...this.labels, result: 'requeue' },
      requeue_after: { ...this.labels, result: 'requeue_after' },
    };
    for (const l of Object.values(this.resultLabels)) this.metrics.reconcileTotal.inc(l, 0);
    this.metrics.reconcileErrors.inc(this.labels, 0);
    this.metrics.workerCount.set(this.labels, this.maxConcurrentReconciles);
    this.metrics.activeWorkers.set(this.labels, 0);
  }

  /** Watch a type: its events go through the predicates and the handler into the queue. */
  watch(type: TypeRef, handler: EventHandler, predicates: Predicate[] = []): void {
    const w = { type, handler, predicates };
    this.watches.push(w);
    this.watchedResources = undefined;
    if (this.started) this.startWatch(w);
  }

  /** Starts the watches (informers list at once) and the workers. */
  start(): void {
    if (this.started) return;
    this.started = true;
    for (const w of this.watches) this.startWatch(w);
    // As controller-runtime, workers start once every source has synced: at once in-process, after
    // the first lists against a remote server (or never, if the controller stops first).
    const syncing = this.watches
      .map((w) => this.opts.cache.waitForSync(w.type))
      .filter((p): p is Promise<void> => p !== undefined);
    for (let i = 0; i < this.maxConcurrentReconciles; i++) {
      const id = i + 1;
      this.workers.push(
        syncing.length
          ? Promise.race([Promise.all(syncing).then(() => true), this.stopping]).then(
              (synced) => (synced && !this.queue.shuttingDown() ? this.worker(id) : undefined),
              () => undefined,
            )
          : this.worker(id),
      );
    }
    this.updateBusy();
  }

  /** Shuts the queue down and waits for in-flight reconciles (ShutDownWithDrain). */
  async stop(): Promise<void> {
    this.stopRequested();
    await this.queue.shutDownWithDrain();
    await Promise.all(this.workers);
    this.heardObject = this.heardWriter = undefined;
    this.updateBusy();
  }

  /** Stops processing a key (hot-loop guard); its adds are dropped until resume(). */
  suspend(key: string): void {
    this.guard.suspend(key);
  }

  resume(key: string): void {
    this.guard.resume(key);
    this.queue.add(key);
  }

  isSuspended(key: string): boolean {
    return this.guard.isSuspended(key);
  }

  /** Adds a request by hand (a "generic" event). */
  enqueue(req: Request, trigger?: Partial<Trigger>): void {
    const key = requestKey(req);
    this.addKey(key, { at: this.opts.clock.now(), kind: 'event', ...trigger });
  }

  /**
   * While anything is queued or reconciling, the (virtual) clock is held: workers are infinitely
   * fast in controller time, so the queue drains before time moves on, and a run is repeatable
   * whatever the host speed (the reconciler may be in a worker thread, answering in real time).
   */
  private updateBusy(): void {
    const busy =
      this.started &&
      !this.queue.shuttingDown() &&
      (this.queue.len() > 0 || this.queue.processingCount() > 0 || this.inFlight > 0);
    if (busy && !this.busyThaw) {
      this.busyThaw = (this.opts.clock as { freeze?: () => () => void }).freeze?.() ?? (() => {});
    } else if (!busy && this.busyThaw) {
      const t = this.busyThaw;
      this.busyThaw = undefined;
      t();
    }
  }

  /** True when nothing is queued, processing or reconciling (waiting items may remain). */
  idle(): boolean {
    return this.queue.len() === 0 && this.inFlight === 0 && this.queue.processingCount() === 0;
  }

  /** Resolves when idle() becomes true. */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  snapshot(): QueueSnapshot {
    const retries: Array<{ key: string; count: number }> = [];
    for (const key of this.queue.retrying() ?? this.knownKeys ?? []) {
      const count = this.queue.numRequeues(key);
      if (count > 0) retries.push({ key, count });
    }
    return {
      controller: this.name,
      at: this.opts.clock.now(),
      queued: this.queue.queued().map((key) => ({ key, since: this.queue.addedAt(key) })),
      waiting: this.queue
        .waiting()
        .map((w) => ({ key: w.item, readyAt: w.readyAt, reason: w.reason })),
      processing: this.queue.processing().map((p) => ({
        key: p.item,
        since: p.since,
        worker: this.workerOf(p.item),
      })),
      retries,
      suspended: this.guard.suspendedKeys(),
      workers: this.maxConcurrentReconciles,
      activeWorkers: this.active,
    };
  }

  private workerOf(key: string): number | undefined {
    const i = this.workerItems.indexOf(key);
    return i >= 0 ? i : undefined;
  }

  // ---- event → queue ----

  private startWatch(w: Watch): void {
    const inf = this.opts.cache.getInformer(w.type);
    inf.addEventHandler({
      onAdd: (obj) => this.onEvent(w, 'create', obj),
      onUpdate: (old, obj) => this.onEvent(w, 'update', obj, old),
      onDelete: (obj) => this.onEvent(w, 'delete', obj),
    });
  }

  /**
   * Who wrote the object of the event being handled, read by `enqueueFromEvent` while the handler
   * runs (synchronously, inside onEvent): one callback serves every event, where a closure over
   * the writer would be made per event.
   */
  private eventWriter: Writer | undefined;
  private readonly enqueueFromEvent: Enqueue = (req, cause) => {
    const key = requestKey(req);
    const writer = this.eventWriter;
    const at = this.opts.clock.now();
    this.addKey(
      key,
      writer
        ? {
            at,
            kind: 'event',
            cause,
            fromReconcile: writer.traceId,
            selfTriggered: writer.key === key,
          }
        : { at, kind: 'event', cause, selfTriggered: false },
    );
  };

  /**
   * The object of the event last heard and who wrote it. The writer is taken from the tracer when
   * the event arrives, before any predicate (a filtered event must not leave its write behind),
   * once for every watch of the type that hears the same event.
   */
  private heardObject: KubeObject | undefined;
  private heardWriter: Writer | undefined;

  private onEvent(w: Watch, kind: EventKind, obj: KubeObject, old?: KubeObject): void {
    if (obj !== this.heardObject) {
      this.heardObject = obj;
      this.heardWriter = this.tracer.takeWriter(obj.metadata.resourceVersion);
    }
    for (const p of w.predicates) if (!evaluate(p, kind, obj, old)) return;
    const outer = this.eventWriter; // restored after, should a handler ever nest events
    this.eventWriter = this.heardWriter;
    try {
      w.handler.handle(kind, obj, old, this.enqueueFromEvent);
    } finally {
      this.eventWriter = outer;
    }
  }

  private addKey(key: string, trigger: Trigger): void {
    if (this.guard.isSuspended(key)) return;
    this.knownKeys?.add(key);
    if (this.has('enqueue')) this.emit('enqueue', { key, trigger });
    this.queue.add(key, trigger);
  }

  // ---- workers ----

  private async worker(id: number): Promise<void> {
    // After the first, an item ready now is taken without a promise: get() would resolve at once
    // anyway, and a bulk run takes tens of thousands. The first waits, so that start() returns
    // before any reconcile begins.
    for (let first = true; ; first = false) {
      let item = first ? undefined : this.queue.tryGet();
      if (item === undefined) {
        const got = await this.queue.get();
        if (got.shutdown) return;
        item = got.item;
      }
      this.active++;
      this.inFlight++;
      this.metrics.activeWorkers.set(this.labels, this.active);
      this.workerItems[id] = item;
      try {
        // A suspended key's pass is skipped, its triggers dropped with it (done() below).
        if (!this.guard.isSuspended(item)) await this.reconcileHandler(item, id);
      } finally {
        this.active--;
        this.inFlight--;
        this.metrics.activeWorkers.set(this.labels, this.active);
        this.workerItems[id] = undefined;
        this.queue.done(item);
        this.updateBusy();
        if (this.idleWaiters.length && this.idle()) {
          const w = this.idleWaiters;
          this.idleWaiters = [];
          for (const f of w) f();
        }
      }
    }
  }

  private resourceName(type: TypeRef): string {
    let n = this.resourceNames.get(type);
    if (!n) this.resourceNames.set(type, (n = resourceName(this.opts.api, type)));
    return n;
  }

  /**
   * The resources this controller watches, by name (any version): only their writes can come back
   * as events, so only theirs are remembered as its own (a bulk run writes tens of thousands).
   */
  private watchedResources: Set<string> | undefined;
  private watchesResource(resource: string): boolean {
    this.watchedResources ??= new Set(this.watches.map((w) => this.resourceName(w.type)));
    return this.watchedResources.has(resource);
  }

  /** What every ReconcileRun shares, built once (closures per reconcile add up in bulk runs). */
  private sharedDeps: RunDeps | undefined;
  private runDeps(): RunDeps {
    if (this.sharedDeps) return this.sharedDeps;
    const stepper = this.opts.stepper;
    this.sharedDeps = {
      api: this.opts.api,
      cache: this.opts.cache,
      clock: this.opts.clock,
      resourceName: (t) => this.resourceName(t),
      onPhase: (t, rec) => {
        if (this.has('phase')) this.emit('phase', { trace: t, phase: rec });
      },
      gate: stepper,
      onWrite: (t, call) => {
        if (this.watchesResource(call.resource)) this.tracer.wrote(t, call);
      },
      recordObjects: this.opts.recordObjects,
      recorder: {
        event: (obj, type, reason, message) => this.opts.recordEvent?.(obj, type, reason, message),
      },
      now: () => this.opts.clock.now(),
    };
    return this.sharedDeps;
  }

  private async reconcileHandler(key: string, worker: number): Promise<void> {
    const clock = this.opts.clock;
    const thaw = (clock as { freeze?: () => () => void }).freeze?.();
    const req = parseRequestKey(key);
    const trace = this.tracer.begin(
      key,
      req,
      worker,
      this.queue.takenAddedAt(key),
      this.queue.takenCauses(key),
    );
    const run = new ReconcileRun(trace, this.runDeps(), this.log.logger(trace.reconcileID));
    this.emit('reconcileStart', trace);
    try {
      const gated = this.tracer.started(run);
      if (gated) await gated;
      // RecoverPanic: whatever the reconciler throws, at once or later, is the reconcile's error.
      let result: Result;
      let error: unknown;
      let threw = false;
      try {
        result = this.resultOf(run, await this.reconcile(run, req));
      } catch (err) {
        error = err;
        threw = true;
        // Go returns (Result, error) together; in JS an error may carry the Result it came with.
        const carried = (err as { result?: unknown } | undefined)?.result;
        result = carried !== undefined ? normalizeResult(carried) : {};
      }
      trace.result = result;
      if (threw) trace.error = toTraceError(error);
      const next = this.decide(trace, result, threw, error);
      const passing = this.tracer.decided(run, result, next);
      if (passing) await passing;
      this.apply(key, trace, next);
    } finally {
      trace.end = clock.now();
      this.tracer.finished(trace);
      this.metrics.reconcileTime.observe(this.labels, (trace.end - trace.start) / 1000);
      thaw?.();
      this.emit('reconcileEnd', trace);
      this.checkHotLoop(key, trace);
    }
  }

  /**
   * Calls the reconciler under the hang watchdog. Not async: reconcileHandler awaits what it
   * returns inside its own try, so a throw at once and a rejection are caught alike, without a
   * second async frame and promise per reconcile.
   */
  private reconcile(run: ReconcileRun, req: Request): unknown {
    return this.withWatchdog(run, this.opts.reconcile(run.context(), req));
  }

  /** What the reconciler returned, as a Result (a malformed one throws: the reconcile's error). */
  private resultOf(run: ReconcileRun, r: unknown): Result {
    const result = validateResult(r);
    const after = (r as Result | undefined)?.requeueAfter;
    if (after !== undefined && after < 0) {
      // Go's reconcileHandler only acts on RequeueAfter > 0: a negative one is a plain success.
      warn(
        run.trace,
        `requeueAfter ${after} ms is negative: controller-runtime treats it as no RequeueAfter`,
      );
    }
    return result;
  }

  /**
   * Rejects when the reconcile has run `hangTimeoutMs` without returning, and abandons its run (its
   * client's later calls fail, nothing more is recorded in its trace). Time the stepper spends
   * holding — this reconcile or another, which every reconcile then waits behind — is not counted:
   * controller time is frozen while a reconcile is held, and so is this watchdog.
   */
  private withWatchdog<T>(run: ReconcileRun, p: Promise<T> | T): Promise<T> | T {
    const ms = this.opts.hangTimeoutMs ?? 0;
    if (!ms) return p; // awaited by the caller as it is: no second promise per reconcile
    const gate = this.opts.stepper;
    const heldAtStart = gate?.heldMs() ?? 0;
    const startedAt = performance.now();
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout>;
      const check = (): void => {
        const held = (gate?.heldMs() ?? 0) - heldAtStart;
        const ran = performance.now() - startedAt - held;
        if (ran < ms) {
          // Held meanwhile: look again when the rest of the allowance would be used up.
          timer = setTimeout(check, ms - ran);
          timer.unref?.();
          return;
        }
        const err = new Error(`reconcile did not return within ${ms} ms (hung) and was abandoned`);
        run.abandon(err);
        reject(err);
      };
      timer = setTimeout(check, ms);
      timer.unref?.();
      Promise.resolve(p).then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (e) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  /** Decides (and counts) what the queue does next; the rate limiter is consulted here. */
  private decide(
    trace: ReconcileTrace,
    result: Result,
    threw: boolean,
    error: unknown,
  ): NextAction {
    const key = trace.key;
    const now = this.opts.clock.now();
    let outcome: Outcome;
    let next: NextAction;
    if (threw) {
      this.metrics.reconcileErrors.inc(this.labels);
      this.countResult('error');
      if (trace.error?.name && PROGRAMMING_ERRORS.has(trace.error.name)) {
        this.metrics.reconcilePanics.inc(this.labels);
      }
      if (result.requeue || result.requeueAfter) {
        warn(
          trace,
          'Reconciler returned both a result with either RequeueAfter or Requeue set and a non-nil error. RequeueAfter and Requeue will always be ignored if the error is non-nil.',
        );
      }
      if (isTerminalError(error)) {
        this.metrics.terminalErrors.inc(this.labels);
        outcome = 'terminal';
        next = { action: 'none' };
      } else {
        outcome = 'error';
        next = this.rateLimited(key, now);
      }
      this.log.logger(trace.reconcileID).error(error, 'Reconciler error', {
        controller: this.name,
        request: key,
      });
    } else if (result.requeueAfter && result.requeueAfter > 0) {
      this.countResult('requeue_after');
      outcome = 'requeue_after';
      next = {
        action: 'requeueAfter',
        delayMs: result.requeueAfter,
        at: now + result.requeueAfter,
        reason: { kind: 'requeueAfter' },
      };
    } else if (result.requeue) {
      this.countResult('requeue');
      outcome = 'requeue';
      next = this.rateLimited(key, now);
    } else {
      this.countResult('success');
      outcome = 'success';
      next = FORGET;
    }
    trace.outcome = outcome;
    return next;
  }

  private countResult(result: CountedResult): void {
    this.metrics.reconcileTotal.inc(this.resultLabels[result]);
  }

  private rateLimited(key: string, now: number): NextAction {
    const { delayMs, reason } = this.queue.whenRateLimited(key);
    return { action: 'rateLimited', delayMs, at: now + delayMs, reason };
  }

  private apply(key: string, trace: ReconcileTrace, next: NextAction): void {
    switch (next.action) {
      case 'forget':
        this.queue.forget(key);
        break;
      case 'requeueAfter':
        this.queue.forget(key);
        this.requeue(key, next, 'requeueAfter', trace.id);
        break;
      case 'rateLimited':
        // The limiter was consulted in decide(); this is AddRateLimited's AddAfter half.
        this.requeue(
          key,
          next,
          next.reason?.kind === 'rate-limit'
            ? 'rate-limit'
            : trace.outcome === 'requeue'
              ? 'requeue'
              : 'backoff',
          trace.id,
        );
        break;
      case 'none':
        break;
    }
  }

  /**
   * Adds the key back after the next action's delay, with the trigger its next trace will show:
   * dated when the key is due back in the queue (it waits until then).
   */
  private requeue(key: string, next: NextAction, kind: Trigger['kind'], traceId: number): void {
    const delayMs = next.delayMs ?? 0;
    const trigger: Trigger | undefined = this.guard.isSuspended(key)
      ? undefined
      : {
          at: this.opts.clock.now() + Math.max(0, delayMs),
          kind,
          fromReconcile: traceId,
          selfTriggered: true,
        };
    this.queue.addAfter(key, delayMs, next.reason, trigger);
  }

  private checkHotLoop(key: string, trace: ReconcileTrace): void {
    const report = this.guard.observe(key, trace, this.opts.clock.now());
    if (!report) return;
    if (report.suspended) this.queue.forget(key);
    this.emit('hotLoop', report);
  }
}
