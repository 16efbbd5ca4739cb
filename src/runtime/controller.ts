/**
 * controller-runtime's pkg/internal/controller: watches feed a rate-limited work queue of
 * `namespace/name` keys; maxConcurrentReconciles workers take keys and call the reconciler; the
 * Result/error decides what the queue does next, exactly as reconcileHandler does:
 *   error (not terminal) → addRateLimited   (a Result returned with it is ignored, with a warning)
 *   TerminalError        → nothing (no requeue, counted as an error)
 *   requeueAfter > 0     → forget + addAfter(requeueAfter)
 *   requeue              → addRateLimited
 *   success              → forget
 * A throw is caught and counted as an error (RecoverPanic). On top of upstream, each reconcile is
 * traced phase by phase, the clock is frozen while it runs (a reconcile takes no virtual time,
 * so a run is repeatable whatever the host speed), and a key that keeps re-triggering itself is
 * suspended instead of spinning (hot-loop guard).
 */
import type { KubeObject, TypeRef } from '../cluster/types';
import type { Clock } from '../util/clock';
import type { Logger, ObjectLike, ReconcileContext } from './api';
import { resourceName, type ApiServer } from './apiserver';
import type { Cache } from './cache';
import { ReconcileRun, type RunDeps } from './client';
import type { WaitReason } from './delayingqueue';
import { Emitter } from './events';
import { HotLoopDetector, type HotLoopOptions, type HotLoopReport } from './hotloop';
import type { EventHandler } from './handler';
import { ControllerMetrics, Registry, WorkqueueMetrics } from './metrics';
import { evaluate, type EventKind, type Predicate } from './predicate';
import { defaultControllerRateLimiter, type RateLimiter } from './ratelimiter';
import { RateLimitingQueue } from './ratelimitingqueue';
import {
  isTerminalError,
  normalizeResult,
  parseRequestKey,
  requestKey,
  thrownMessage,
  validateResult,
  type Request,
  type Result,
} from './reconcile';
import type { Stepper } from './stepper';
import type {
  ApiCall,
  NextAction,
  Outcome,
  PhaseRecord,
  ReconcileTrace,
  TraceError,
  Trigger,
} from './trace';

export type { HotLoopOptions, HotLoopReport };

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

export interface LogRecord {
  at: number;
  level: 'info' | 'error';
  controller: string;
  reconcileID?: string;
  msg: string;
  values?: Record<string, unknown>;
  error?: string;
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

const PROGRAMMING_ERRORS = new Set(['TypeError', 'ReferenceError', 'RangeError', 'SyntaxError']);

export class Controller extends Emitter<ControllerEvents> {
  readonly name: string;
  readonly queue: RateLimitingQueue<string>;
  readonly metrics: ControllerMetrics;
  readonly registry: Registry;
  readonly maxConcurrentReconciles: number;
  readonly traces: ReconcileTrace[] = [];
  readonly logs: LogRecord[] = [];
  readonly hotLoops: HotLoopReport[] = [];

  private readonly watches: Watch[] = [];
  private started = false;
  private seq = 0;
  private active = 0;
  private workers: Promise<void>[] = [];
  private readonly pendingTriggers = new Map<string, Trigger[]>();
  private readonly delayedTriggers = new Map<string, Trigger>();
  private readonly queuedSince = new Map<string, number>();
  private readonly processingWorker = new Map<string, number>();
  private readonly suspended = new Set<string>();
  private readonly knownKeys = new Set<string>();
  /** resourceVersion → who wrote it, to recognise watch events caused by our own writes. */
  private readonly writes = new Map<string, { key: string; traceId: number }>();
  private readonly loops: HotLoopDetector;
  private readonly resourceNames = new Map<string, string>();
  private readonly labels: { controller: string };
  private inFlight = 0;
  private stopRequested: () => void = () => {};
  /** Resolves (false) when stop() is called: workers still waiting for the caches give up. */
  private readonly stopping = new Promise<false>((r) => (this.stopRequested = () => r(false)));
  private busyThaw: (() => void) | undefined;
  private idleWaiters: Array<() => void> = [];

  constructor(private readonly opts: ControllerOptions) {
    super();
    this.loops = new HotLoopDetector(opts.hotLoop);
    this.name = opts.name;
    this.labels = { controller: this.name };
    this.registry = opts.registry ?? new Registry();
    this.metrics = new ControllerMetrics(this.registry);
    this.maxConcurrentReconciles = Math.max(1, opts.maxConcurrentReconciles ?? 1);
    this.queue = new RateLimitingQueue<string>(
      { clock: opts.clock, name: this.name, metrics: new WorkqueueMetrics(this.registry) },
      opts.rateLimiter ?? defaultControllerRateLimiter<string>(opts.clock),
    );
    this.queue.onChange((change, key) => {
      if (change === 'add' && key !== undefined && !this.queuedSince.has(key)) {
        this.queuedSince.set(key, opts.clock.now());
      }
      if (change === 'ready' && key !== undefined) {
        const t = this.delayedTriggers.get(key);
        if (t) {
          this.delayedTriggers.delete(key);
          this.pushTrigger(key, { ...t, at: opts.clock.now() });
        }
      }
      this.updateBusy();
      if (this.has('queueChange')) this.emit('queueChange', { change, key });
    });
    for (const k of ['success', 'error', 'requeue', 'requeue_after']) {
      this.metrics.reconcileTotal.inc({ ...this.labels, result: k }, 0);
    }
    this.metrics.reconcileErrors.inc(this.labels, 0);
    this.metrics.workerCount.set(this.labels, this.maxConcurrentReconciles);
    this.metrics.activeWorkers.set(this.labels, 0);
  }

  /** Watch a type: its events go through the predicates and the handler into the queue. */
  watch(type: TypeRef, handler: EventHandler, predicates: Predicate[] = []): void {
    const w = { type, handler, predicates };
    this.watches.push(w);
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
    this.updateBusy();
  }

  /** Stops processing a key (hot-loop guard); its adds are dropped until resume(). */
  suspend(key: string): void {
    this.suspended.add(key);
  }

  resume(key: string): void {
    this.suspended.delete(key);
    this.loops.reset(key);
    this.queue.add(key);
  }

  isSuspended(key: string): boolean {
    return this.suspended.has(key);
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
    return this.queue.len() === 0 && this.inFlight === 0 && this.queue.processing().length === 0;
  }

  /** Resolves when idle() becomes true. */
  whenIdle(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  snapshot(): QueueSnapshot {
    const retries: Array<{ key: string; count: number }> = [];
    for (const key of this.knownKeys) {
      const count = this.queue.numRequeues(key);
      if (count > 0) retries.push({ key, count });
    }
    return {
      controller: this.name,
      at: this.opts.clock.now(),
      queued: this.queue.queued().map((key) => ({ key, since: this.queuedSince.get(key) })),
      waiting: this.queue
        .waiting()
        .map((w) => ({ key: w.item, readyAt: w.readyAt, reason: w.reason })),
      processing: this.queue.processing().map((p) => ({
        key: p.item,
        since: p.since,
        worker: this.processingWorker.get(p.item),
      })),
      retries,
      suspended: [...this.suspended],
      workers: this.maxConcurrentReconciles,
      activeWorkers: this.active,
    };
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

  private onEvent(w: Watch, kind: EventKind, obj: KubeObject, old?: KubeObject): void {
    for (const p of w.predicates) if (!evaluate(p, kind, obj, old)) return;
    const rv = obj.metadata.resourceVersion;
    const writer = rv !== undefined ? this.writes.get(rv) : undefined;
    w.handler.handle(kind, obj, old, (req, cause) => {
      const key = requestKey(req);
      this.addKey(key, {
        at: this.opts.clock.now(),
        kind: 'event',
        cause,
        ...(writer
          ? { fromReconcile: writer.traceId, selfTriggered: writer.key === key }
          : { selfTriggered: false }),
      });
    });
  }

  private addKey(key: string, trigger: Trigger): void {
    if (this.suspended.has(key)) return;
    this.knownKeys.add(key);
    this.pushTrigger(key, trigger);
    if (this.has('enqueue')) this.emit('enqueue', { key, trigger });
    this.queue.add(key);
  }

  private pushTrigger(key: string, t: Trigger): void {
    let list = this.pendingTriggers.get(key);
    if (!list) this.pendingTriggers.set(key, (list = []));
    if (list.length < 20) list.push(t);
  }

  // ---- workers ----

  private async worker(id: number): Promise<void> {
    for (;;) {
      const { item, shutdown } = await this.queue.get();
      if (shutdown) return;
      this.active++;
      this.inFlight++;
      this.metrics.activeWorkers.set(this.labels, this.active);
      this.processingWorker.set(item, id);
      try {
        if (this.suspended.has(item)) {
          this.pendingTriggers.delete(item);
          this.queuedSince.delete(item);
        } else {
          await this.reconcileHandler(item, id);
        }
      } finally {
        this.active--;
        this.inFlight--;
        this.metrics.activeWorkers.set(this.labels, this.active);
        this.processingWorker.delete(item);
        this.queue.done(item);
        this.updateBusy();
        if (this.idle() && this.idleWaiters.length) {
          const w = this.idleWaiters;
          this.idleWaiters = [];
          for (const f of w) f();
        }
      }
    }
  }

  private resourceName(type: TypeRef): string {
    const k = `${type.apiVersion}/${type.kind}`;
    let n = this.resourceNames.get(k);
    if (!n) this.resourceNames.set(k, (n = resourceName(this.opts.api, type)));
    return n;
  }

  /** What every ReconcileRun shares, built once (closures per reconcile add up in bulk runs). */
  private sharedDeps: Omit<RunDeps, 'log'> | undefined;
  private runDeps(): Omit<RunDeps, 'log'> {
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
      onWrite: (t, call) => this.noteWrite(t, call),
      recordObjects: this.opts.recordObjects,
      recordEvent: this.opts.recordEvent,
    };
    return this.sharedDeps;
  }

  private async reconcileHandler(key: string, worker: number): Promise<void> {
    const clock = this.opts.clock;
    const thaw = (clock as { freeze?: () => () => void }).freeze?.();
    const startedAt = clock.now();
    const id = ++this.seq;
    const req = parseRequestKey(key);
    const queuedAt = this.queuedSince.get(key);
    this.queuedSince.delete(key);
    const trace: ReconcileTrace = {
      id,
      reconcileID: pseudoUUID(this.name, id),
      controller: this.name,
      request: req,
      key,
      worker,
      triggers: this.pendingTriggers.get(key) ?? [],
      ...(queuedAt !== undefined ? { queuedAt } : {}),
      start: startedAt,
      phases: [],
      calls: [],
      warnings: [],
    };
    this.pendingTriggers.delete(key);
    this.traces.push(trace);
    if (this.opts.maxTraces && this.traces.length > this.opts.maxTraces) this.traces.shift();

    const log = this.logger(trace.reconcileID);
    const run = new ReconcileRun(trace, { ...this.runDeps(), log });
    this.emit('reconcileStart', trace);

    try {
      const first = trace.triggers[0];
      const enq = run.addPhase({
        phase: 'enqueue',
        at: first?.at ?? queuedAt ?? startedAt,
        summary: describeTriggers(trace.triggers),
        triggers: trace.triggers,
      });
      if (run.gated) await run.gate(enq, 'enter');
      const deq = run.addPhase({
        phase: 'dequeue',
        at: clock.now(),
        summary: `worker ${worker} took ${key}${queuedAt !== undefined ? ` after ${clock.now() - queuedAt} ms in the queue` : ''}`,
        ...(queuedAt !== undefined ? { queueWaitMs: clock.now() - queuedAt } : {}),
      });
      if (run.gated) await run.gate(deq, 'enter');
      const rec = run.addPhase({
        phase: 'reconcile',
        at: clock.now(),
        summary: `Reconcile ${key} (reconcileID ${trace.reconcileID})`,
      });
      if (run.gated) await run.gate(rec, 'enter');

      let result: Result = {};
      let error: unknown;
      let threw = false;
      try {
        const r = await this.withWatchdog(this.opts.reconcile(run.context(), req));
        result = validateResult(r);
        const after = (r as Result | undefined)?.requeueAfter;
        if (after !== undefined && after < 0) {
          // Go's reconcileHandler only acts on RequeueAfter > 0: a negative one is a plain success.
          trace.warnings.push(
            `requeueAfter ${after} ms is negative: controller-runtime treats it as no RequeueAfter`,
          );
        }
      } catch (err) {
        error = err;
        threw = true;
        // Go returns (Result, error) together; in JS an error may carry the Result it came with.
        const carried = (err as { result?: unknown } | undefined)?.result;
        if (carried !== undefined) result = normalizeResult(carried);
      }
      trace.result = result;
      if (threw) trace.error = toTraceError(error);
      const next = this.decide(trace, result, threw, error);
      trace.next = next;
      const resRec = run.addPhase({
        phase: 'result',
        at: clock.now(),
        summary: describeResult(trace, next),
        result,
        next,
      });
      if (run.gated) await run.gate(resRec, 'enter');
      if (run.gated) await run.gate(resRec, 'exit');
      this.apply(key, trace, next);
    } finally {
      trace.end = clock.now();
      this.metrics.reconcileTime.observe(this.labels, (trace.end - trace.start) / 1000);
      thaw?.();
      this.emit('reconcileEnd', trace);
      this.checkHotLoop(key, trace);
    }
  }

  private withWatchdog<T>(p: Promise<T> | T): Promise<T> {
    const ms = this.opts.hangTimeoutMs ?? 0;
    if (!ms) return Promise.resolve(p);
    return new Promise<T>((resolve, reject) => {
      const t = setTimeout(
        () =>
          reject(new Error(`reconcile did not return within ${ms} ms (hung) and was abandoned`)),
        ms,
      );
      t.unref?.();
      Promise.resolve(p).then(
        (v) => {
          clearTimeout(t);
          resolve(v);
        },
        (e) => {
          clearTimeout(t);
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
    const total = (r: string) => this.metrics.reconcileTotal.inc(this.resultLabels(r));
    const now = this.opts.clock.now();
    let outcome: Outcome;
    let next: NextAction;
    if (threw) {
      this.metrics.reconcileErrors.inc(this.labels);
      total('error');
      if (trace.error?.name && PROGRAMMING_ERRORS.has(trace.error.name)) {
        this.metrics.reconcilePanics.inc(this.labels);
      }
      if (result.requeue || result.requeueAfter) {
        trace.warnings.push(
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
      this.logger(trace.reconcileID).error(error, 'Reconciler error', {
        controller: this.name,
        request: key,
      });
    } else if (result.requeueAfter && result.requeueAfter > 0) {
      total('requeue_after');
      outcome = 'requeue_after';
      next = {
        action: 'requeueAfter',
        delayMs: result.requeueAfter,
        at: now + result.requeueAfter,
        reason: { kind: 'requeueAfter' },
      };
    } else if (result.requeue) {
      total('requeue');
      outcome = 'requeue';
      next = this.rateLimited(key, now);
    } else {
      total('success');
      outcome = 'success';
      next = { action: 'forget' };
    }
    trace.outcome = outcome;
    return next;
  }

  /** One labels object per result, so the metrics' label-key cache hits on the hot path. */
  private readonly resultLabelCache = new Map<string, { controller: string; result: string }>();
  private resultLabels(result: string): { controller: string; result: string } {
    let l = this.resultLabelCache.get(result);
    if (!l) this.resultLabelCache.set(result, (l = { ...this.labels, result }));
    return l;
  }

  private rateLimited(key: string, now: number): NextAction {
    const rl = this.queue.rateLimiter;
    const delay = rl.when(key);
    const why = (rl as { lastReason?: () => string }).lastReason?.();
    const reason: WaitReason =
      why === 'rate-limit'
        ? { kind: 'rate-limit' }
        : { kind: 'backoff', attempt: rl.numRequeues(key) };
    return { action: 'rateLimited', delayMs: delay, at: now + delay, reason };
  }

  private apply(key: string, trace: ReconcileTrace, next: NextAction): void {
    switch (next.action) {
      case 'forget':
        this.queue.forget(key);
        break;
      case 'requeueAfter':
        this.queue.forget(key);
        this.queue.addAfter(key, next.delayMs ?? 0, next.reason);
        this.delayTrigger(key, 'requeueAfter', trace.id);
        break;
      case 'rateLimited':
        // The limiter was consulted in decide(); this is AddRateLimited's AddAfter half.
        this.queue.addAfter(key, next.delayMs ?? 0, next.reason);
        this.delayTrigger(
          key,
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

  /** Remembers why a waiting key will come back, to put in its next trace's enqueue phase. */
  private delayTrigger(key: string, kind: Trigger['kind'], traceId: number): void {
    if (this.suspended.has(key) || this.queue.shuttingDown()) return;
    const t: Trigger = {
      at: this.opts.clock.now(),
      kind,
      fromReconcile: traceId,
      selfTriggered: true,
    };
    if (this.queue.readyAt(key) !== undefined) {
      if (!this.delayedTriggers.has(key)) this.delayedTriggers.set(key, t);
    } else {
      this.pushTrigger(key, t); // no delay: already added
    }
  }

  private noteWrite(trace: ReconcileTrace, call: ApiCall): void {
    if (!call.resourceVersion) return;
    this.writes.set(call.resourceVersion, { key: trace.key, traceId: trace.id });
    if (this.writes.size > 50_000) {
      const first = this.writes.keys().next().value;
      if (first !== undefined) this.writes.delete(first);
    }
  }

  private checkHotLoop(key: string, trace: ReconcileTrace): void {
    const report = this.loops.observe(key, trace, this.opts.clock.now());
    if (!report) return;
    this.hotLoops.push(report);
    if (report.suspended) {
      this.suspend(key);
      this.queue.forget(key);
    }
    this.emit('hotLoop', report);
  }

  private logger(reconcileID?: string): Logger {
    const push = (r: Omit<LogRecord, 'at' | 'controller' | 'reconcileID'>) => {
      const rec: LogRecord = {
        at: this.opts.clock.now(),
        controller: this.name,
        ...(reconcileID ? { reconcileID } : {}),
        ...r,
      };
      this.logs.push(rec);
      if (this.logs.length > 10_000) this.logs.shift();
      this.emit('log', rec);
    };
    return {
      info: (msg, values) => push({ level: 'info', msg, ...(values ? { values } : {}) }),
      error: (err, msg, values) =>
        push({
          level: 'error',
          msg,
          error:
            err instanceof Error
              ? err.message
              : String((err as { message?: unknown })?.message ?? err),
          ...(values ? { values } : {}),
        }),
    };
  }
}

/** A UUID-shaped, deterministic reconcileID, so two runs of a simulation print the same. */
function pseudoUUID(name: string, n: number): string {
  let h = 2166136261;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 16777619);
  const a = (h >>> 0).toString(16).padStart(8, '0');
  return `${a}-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

export function toTraceError(err: unknown): TraceError {
  if (err && typeof err === 'object') {
    const e = err as {
      message?: unknown;
      name?: unknown;
      reason?: unknown;
      code?: unknown;
      stack?: unknown;
      location?: unknown;
    };
    return {
      message: thrownMessage(err),
      ...(typeof e.name === 'string' ? { name: e.name } : {}),
      ...(typeof e.reason === 'string' ? { reason: e.reason } : {}),
      ...(typeof e.code === 'number' ? { code: e.code } : {}),
      ...(isTerminalError(err) ? { terminal: true } : {}),
      ...(typeof e.location === 'string' ? { location: e.location } : {}),
      ...(typeof e.stack === 'string' ? { stack: e.stack } : {}),
    };
  }
  return { message: thrownMessage(err) };
}

function describeTriggers(ts: Trigger[]): string {
  if (!ts.length) return 'queued';
  const parts = ts.slice(0, 3).map((t) => {
    if (t.kind !== 'event' || !t.cause)
      return `${t.kind}${t.fromReconcile ? ` (from reconcile #${t.fromReconcile})` : ''}`;
    const o = t.cause.object;
    const who = `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;
    const via =
      t.cause.handler === 'owns' ? ' (owned)' : t.cause.handler === 'watches' ? ' (mapped)' : '';
    return `${t.cause.event} ${who}${via}${t.selfTriggered ? ' ← own write' : ''}`;
  });
  return parts.join('; ') + (ts.length > 3 ? `; +${ts.length - 3} more` : '');
}

function describeResult(trace: ReconcileTrace, next: NextAction): string {
  const r = trace.error
    ? `error: ${trace.error.message}`
    : trace.result?.requeueAfter
      ? `requeueAfter ${trace.result.requeueAfter} ms`
      : trace.result?.requeue
        ? 'requeue'
        : 'done';
  switch (next.action) {
    case 'forget':
      return `${r} → forget`;
    case 'none':
      return `${r} → not requeued (terminal)`;
    case 'requeueAfter':
      return `${r} → forget + addAfter ${next.delayMs} ms (at t=${next.at})`;
    case 'rateLimited':
      return `${r} → addRateLimited: ${next.delayMs} ms (${next.reason?.kind}${next.reason?.attempt ? ` ${next.reason.attempt}` : ''}, at t=${next.at})`;
  }
}
