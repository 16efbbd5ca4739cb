/**
 * The controllers of a manager process watched from outside, with no change to its code: each
 * reconcile's start, end and result come from controller-runtime's V(5) logs ("Reconciling",
 * "Reconcile successful", "Reconcile done, requeueing after …", "Reconciler error", each with
 * its `reconcileID`), its queue from `/metrics` and the priority queue's `workqueue_items` log,
 * and what each reconcile did from the cluster's audit record of the process's own user. The
 * result has the shapes the runtime's own controllers produce (ReconcileTrace, QueueSnapshot,
 * HotLoopReport), so the Work Queue view, the debugger's history and findings.ts take either.
 */
import type { AuditEvent } from '../cluster/endpoints/audit';
import type { QueueSnapshot } from './controller';
import type { WaitReason } from './delayingqueue';
import type { EventKind } from './predicate';
import { HotLoopDetector, type HotLoopReport } from './hotloop';
import { DEFAULT_BASE_DELAY_MS, DEFAULT_MAX_DELAY_MS } from './ratelimiter';
import { sampleValue, type Sample } from './promtext';
import {
  KEPT_TRACES,
  type ApiCall,
  type NextAction,
  type ReconcileTrace,
  type Trigger,
  type Verb,
} from './trace';
import { reconcileOutcome, type ZapEntry } from './zaplog';

/** Audit events waiting to be matched to a reconcile (they arrive before its end log). */
const MAX_PENDING_CALLS = 5000;
/**
 * Audit times are whole milliseconds (Date.now, rounded down), log times nanoseconds: a call
 * made just after a reconcile started can carry a time up to 1 ms before that start.
 */
const SKEW_MS = 1;

export class ObservedController {
  readonly traces: ReconcileTrace[] = [];
  readonly hotLoops: HotLoopReport[] = [];
  maxConcurrentReconciles = 1;
  /** From the logs' `controllerGroup` / `controllerKind`. */
  group = '';
  kind = '';
  readonly open = new Map<string, ReconcileTrace>();
  readonly waiting = new Map<string, { readyAt: number; reason: WaitReason }>();
  /** Consecutive failures per key (controller-runtime's per-item backoff counter). */
  readonly failures = new Map<string, number>();
  /** Keys the priority queue listed as ready (from its `workqueue_items` log). */
  queued: string[] = [];
  metrics = { depth: 0, adds: 0, retries: 0, activeWorkers: 0 };
  readonly detector = new HotLoopDetector({ action: 'report' });

  constructor(readonly name: string) {}
}

/** A successful write by another client (the user's kubectl, a built-in controller). */
interface ForeignWrite {
  at: number;
  verb: Verb;
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  /** Its object's owners, `Kind/name` (owned objects' events enqueue their owner). */
  owners: string[];
}

/** Other clients' writes kept to say why a reconcile was enqueued (a few seconds' worth). */
const MAX_FOREIGN_WRITES = 500;

export class ObservedManager {
  private readonly controllers = new Map<string, ObservedController>();
  private pending: ApiCall[] = [];
  private foreign: ForeignWrite[] = [];
  private seq = 0;
  private readonly listeners = new Set<(t: ReconcileTrace) => void>();

  private backlog: Array<{ entry: ZapEntry; arrived: number }> = [];
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param user the audit user the process authenticates as (its kubeconfig's token).
   * @param settleMs how long a log entry waits before it is applied: the audit event of a request
   *   is recorded when its response closes, which can come a moment after the manager has
   *   already logged the end of the reconcile that made it (two processes, two event loops).
   */
  constructor(
    readonly user: string,
    private readonly settleMs = 100,
  ) {}

  all(): ObservedController[] {
    return [...this.controllers.values()];
  }

  get(name: string): ObservedController | undefined {
    return this.controllers.get(name);
  }

  /** The reconcile controller-runtime gave this reconcileID, running or finished (newest kept). */
  traceOf(reconcileID: string): ReconcileTrace | undefined {
    for (const c of this.controllers.values()) {
      const open = c.open.get(reconcileID);
      if (open) return open;
      for (let i = c.traces.length - 1; i >= 0; i--)
        if (c.traces[i].reconcileID === reconcileID) return c.traces[i];
    }
    return undefined;
  }

  /** Called with each finished reconcile. */
  onReconcileEnd(listener: (t: ReconcileTrace) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private controller(name: string): ObservedController {
    let c = this.controllers.get(name);
    if (!c) this.controllers.set(name, (c = new ObservedController(name)));
    return c;
  }

  /** Feeds one zap entry; it is applied `settleMs` later (at once with 0). */
  onLog(e: ZapEntry): void {
    if (this.settleMs <= 0) {
      this.apply(e);
      return;
    }
    this.backlog.push({ entry: e, arrived: performance.now() });
    this.timer ??= setTimeout(() => this.drain(), this.settleMs);
  }

  private drain(): void {
    this.timer = undefined;
    const due = performance.now() - this.settleMs;
    while (this.backlog.length && this.backlog[0].arrived <= due)
      this.apply(this.backlog.shift()!.entry);
    if (this.backlog.length)
      this.timer = setTimeout(() => this.drain(), this.backlog[0].arrived - due);
  }

  /** Applies every waiting log entry now (before reading results, or when the process is gone). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const { entry } of this.backlog.splice(0)) this.apply(entry);
  }

  /** Applies one zap entry; returns the trace it started or ended, if any. */
  private apply(e: ZapEntry): ReconcileTrace | undefined {
    if (!e.controller) return undefined;
    const c = this.controller(e.controller);
    const kind = e.controllerKind ?? (e.fields.controllerKind as string | undefined);
    if (kind) c.kind = kind;
    if (typeof e.fields.controllerGroup === 'string') c.group = e.fields.controllerGroup;
    if (typeof e.fields['worker count'] === 'number')
      c.maxConcurrentReconciles = e.fields['worker count'];
    if (e.msg === 'workqueue_items' && Array.isArray(e.fields.items)) {
      this.onQueueItems(c, e.fields.items, e.ts);
      return undefined;
    }
    const outcome = reconcileOutcome(e);
    if (!outcome || !e.reconcileID) return undefined;
    if (outcome.kind === 'start') return this.start(c, e);
    const t = c.open.get(e.reconcileID);
    if (!t) return undefined;
    if (outcome.kind === 'panic') {
      // Logged only when the panic is not recovered: the process is about to die.
      t.error = { message: `panic: ${outcome.value}`, name: 'panic' };
      return undefined;
    }
    c.open.delete(e.reconcileID);
    t.end = e.ts;
    switch (outcome.kind) {
      case 'success':
        t.result = {};
        t.outcome = 'success';
        t.next = { action: 'forget' };
        c.failures.delete(t.key);
        break;
      case 'requeueAfter':
        t.result = { requeueAfter: outcome.afterMs };
        t.outcome = 'requeue_after';
        t.next = {
          action: 'requeueAfter',
          delayMs: outcome.afterMs,
          at: e.ts + outcome.afterMs,
          reason: { kind: 'requeueAfter' },
        };
        c.failures.delete(t.key);
        break;
      case 'requeue':
        t.result = { requeue: true };
        t.outcome = 'requeue';
        t.next = backoffAfter(c, t.key, e.ts);
        break;
      case 'error': {
        const terminal = /terminal error/i.test(outcome.error);
        t.error = { message: outcome.error, ...(terminal ? { terminal: true } : {}) };
        t.outcome = terminal ? 'terminal' : 'error';
        t.next = terminal ? { action: 'none' } : backoffAfter(c, t.key, e.ts);
        break;
      }
    }
    if (t.next?.at !== undefined && t.next.reason)
      c.waiting.set(t.key, { readyAt: t.next.at, reason: t.next.reason });
    t.calls = this.takeCalls(t);
    t.phases.push({ phase: 'result', at: e.ts, summary: summaryOf(t), next: t.next });
    const loop = c.detector.observe(t.key, t, e.ts);
    if (loop) {
      // The runtime's controllers pause a looping key, so they report it once; an observed
      // process cannot be paused and the detector fires again and again: keep the newest report.
      const i = c.hotLoops.findIndex((h) => h.key === loop.key);
      if (i >= 0) c.hotLoops[i] = loop;
      else c.hotLoops.push(loop);
    }
    for (const l of this.listeners) l(t);
    return t;
  }

  private start(c: ObservedController, e: ZapEntry): ReconcileTrace {
    const namespace = e.namespace ?? '';
    const name = e.name ?? '';
    const key = namespace ? `${namespace}/${name}` : name;
    const trace: ReconcileTrace = {
      id: ++this.seq,
      reconcileID: e.reconcileID!,
      controller: c.name,
      request: { namespace, name },
      key,
      worker: c.open.size,
      triggers: [this.triggerOf(c, key, e.ts)],
      start: e.ts,
      phases: [{ phase: 'reconcile', at: e.ts, summary: `Reconcile ${key}` }],
      calls: [],
      warnings: [],
    };
    const wait = c.waiting.get(key);
    if (wait) trace.queuedAt = Math.min(wait.readyAt, e.ts);
    c.waiting.delete(key);
    c.queued = c.queued.filter((k) => k !== key);
    c.open.set(trace.reconcileID, trace);
    c.traces.push(trace);
    if (c.traces.length > KEPT_TRACES) c.traces.shift();
    return trace;
  }

  /**
   * Why the key is reconciled now: its own previous pass wrote the object or one it owns (the
   * watch event of that write brings it back — selfTriggered), its requeueAfter or backoff came
   * due, or something else changed.
   */
  private triggerOf(c: ObservedController, key: string, at: number): Trigger {
    let prev: ReconcileTrace | undefined;
    for (let i = c.traces.length - 1; i >= 0; i--) {
      if (c.traces[i].key === key && c.traces[i].end !== undefined) {
        prev = c.traces[i];
        break;
      }
    }
    if (!prev) return this.foreignCause(c, key, at, -Infinity) ?? initialListed(c, key, at);
    const due = prev.next?.at !== undefined && at >= prev.next.at - 50;
    if (due && prev.next?.action === 'requeueAfter')
      return { at, kind: 'requeueAfter', fromReconcile: prev.id };
    if (due && prev.next?.action === 'rateLimited')
      return {
        at,
        kind: prev.outcome === 'requeue' ? 'requeue' : 'backoff',
        fromReconcile: prev.id,
      };
    const write = [...prev.calls]
      .reverse()
      .find((w) => w.source === 'server' && w.code < 300 && !w.noop && isWrite(w.verb));
    // A watch event follows its write within milliseconds; later ones have another cause.
    if (!write || at - write.at > 1000)
      return this.foreignCause(c, key, at, prev.start) ?? { at, kind: 'event' };
    const own =
      write.kind === c.kind &&
      `${write.namespace ? `${write.namespace}/` : ''}${write.name}` === key;
    return {
      at,
      kind: 'event',
      selfTriggered: true,
      fromReconcile: prev.id,
      cause: {
        handler: own ? 'for' : 'owns',
        event: eventOf(write.verb),
        object: {
          apiVersion: write.apiVersion,
          kind: write.kind,
          ...(write.namespace ? { namespace: write.namespace } : {}),
          name: write.name,
          ...(write.resourceVersion ? { resourceVersion: write.resourceVersion } : {}),
        },
      },
    };
  }

  /**
   * Another client's write since `since` whose watch event enqueues `key`: to the reconciled
   * object itself (the `For` handler) or to an object it owns (`Owns`), the newest first.
   */
  private foreignCause(
    c: ObservedController,
    key: string,
    at: number,
    since: number,
  ): Trigger | undefined {
    const [namespace, name] = key.includes('/') ? key.split('/') : ['', key];
    for (let i = this.foreign.length - 1; i >= 0; i--) {
      const w = this.foreign[i];
      if (w.at > at + SKEW_MS) continue;
      if (w.at < since) break;
      if (w.namespace !== namespace) continue;
      const own = w.kind === c.kind && w.name === name;
      if (!own && !w.owners.includes(`${c.kind}/${name}`)) continue;
      return {
        at,
        kind: 'event',
        cause: {
          handler: own ? 'for' : 'owns',
          event: eventOf(w.verb),
          object: {
            apiVersion: w.apiVersion,
            kind: w.kind,
            ...(w.namespace ? { namespace: w.namespace } : {}),
            name: w.name,
          },
        },
      };
    }
    return undefined;
  }

  /** The priority queue's periodic dump: which keys are ready and which wait until when. */
  private onQueueItems(c: ObservedController, items: unknown[], at: number): void {
    const queued: string[] = [];
    for (const it of items) {
      if (typeof it !== 'object' || it === null) continue;
      const { key, readyAt } = it as {
        key?: { Namespace?: string; Name?: string };
        readyAt?: string;
      };
      if (!key?.Name) continue;
      const k = key.Namespace ? `${key.Namespace}/${key.Name}` : key.Name;
      const ready = readyAt ? Date.parse(readyAt) : NaN;
      if (!Number.isNaN(ready) && ready > at) {
        if (!c.waiting.has(k)) c.waiting.set(k, { readyAt: ready, reason: { kind: 'delay' } });
      } else queued.push(k);
    }
    c.queued = queued;
  }

  /** Feeds one audit event; the process's own requests become the calls of its reconciles. */
  onAudit(ev: AuditEvent): void {
    if (ev.stage !== 'ResponseComplete' || ev.verb === 'watch' || !ev.resource) return;
    if (ev.user !== this.user) {
      this.onForeignWrite(ev);
      return;
    }
    const obj = ev.after ?? ev.before;
    const kind = obj?.kind ?? '';
    const call: ApiCall = {
      verb: toVerb(ev.verb),
      resource: ev.resource,
      apiVersion: ev.apiVersion,
      kind,
      namespace: ev.namespace,
      // A refused create has no object to name it; its webhooks were told its name.
      name: ev.name || (obj?.metadata.name ?? webhookNamed(ev)),
      subresource: ev.subresource,
      code: ev.code,
      ...(ev.reason ? { reason: ev.reason } : {}),
      ...(ev.message ? { message: ev.message } : {}),
      ...(ev.fault ? { fault: ev.fault } : {}),
      ...(ev.webhookCalls ? { webhooks: ev.webhookCalls } : {}),
      source: 'server',
      at: ev.start,
      ...(ev.end !== undefined ? { wallMs: ev.end - ev.start } : {}),
      ...(ev.after?.metadata.resourceVersion
        ? { resourceVersion: ev.after.metadata.resourceVersion }
        : {}),
      ...(ev.before &&
      ev.after &&
      ev.before.metadata.resourceVersion === ev.after.metadata.resourceVersion
        ? { noop: true }
        : {}),
    };
    this.pending.push(call);
    if (this.pending.length > MAX_PENDING_CALLS) this.pending.shift();
  }

  /** Keeps another client's successful write: its watch event may be why a reconcile runs. */
  private onForeignWrite(ev: AuditEvent): void {
    const verb = toVerb(ev.verb);
    if (!isWrite(verb) || ev.code >= 300) return;
    const obj = ev.after ?? ev.before;
    if (!obj) return;
    // An update that changed nothing makes no watch event.
    if (
      ev.before &&
      ev.after &&
      ev.before.metadata.resourceVersion === ev.after.metadata.resourceVersion
    )
      return;
    this.foreign.push({
      at: ev.end ?? ev.start,
      verb,
      apiVersion: obj.apiVersion,
      kind: obj.kind,
      namespace: ev.namespace,
      name: ev.name || (obj.metadata.name ?? ''),
      owners: (obj.metadata.ownerReferences ?? []).map((o) => `${o.kind}/${o.name}`),
    });
    if (this.foreign.length > MAX_FOREIGN_WRITES) this.foreign.shift();
  }

  /**
   * The process's calls made while `t` ran. With several reconciles open at once (several
   * workers or controllers), a call goes to the one whose key it names or whose object owns it.
   */
  private takeCalls(t: ReconcileTrace): ApiCall[] {
    const mine: ApiCall[] = [];
    const rest: ApiCall[] = [];
    const others = this.all().flatMap((c) => [...c.open.values()]);
    for (const call of this.pending) {
      // A call ends before the reconcile that made it logs its end.
      const inside = call.at >= t.start - SKEW_MS && call.at <= (t.end ?? Infinity);
      if (!inside) {
        // Older than any open reconcile: it belongs to one that has ended already (its audit
        // event came later than the settle time) or to none (start-up reads).
        if (call.at < t.start && others.every((o) => call.at < o.start)) {
          this.attachLate(call);
          continue;
        }
        rest.push(call);
        continue;
      }
      const contested = others.some((o) => call.at >= o.start - SKEW_MS);
      if (!contested || namesKey(call, t)) mine.push(call);
      else rest.push(call);
    }
    this.pending = rest;
    return mine.sort((a, b) => a.at - b.at);
  }

  /** Adds a call that arrived after its reconcile had ended to that reconcile, if it ran then. */
  private attachLate(call: ApiCall): void {
    for (const c of this.controllers.values()) {
      for (let i = c.traces.length - 1; i >= 0 && i >= c.traces.length - 50; i--) {
        const t = c.traces[i];
        if (t.end === undefined || call.at < t.start - SKEW_MS || call.at > t.end) continue;
        t.calls.push(call);
        t.calls.sort((a, b) => a.at - b.at);
        return;
      }
    }
  }

  /** controller-runtime's and client-go's signals from one scrape of `/metrics`. */
  onMetrics(samples: Sample[]): void {
    for (const s of samples) {
      if (s.name !== 'controller_runtime_active_workers') continue;
      const c = this.controller(s.labels.controller ?? '');
      c.metrics.activeWorkers = s.value;
    }
    for (const c of this.controllers.values()) {
      const l = { name: c.name };
      c.metrics.depth = sampleValue(samples, 'workqueue_depth', l) ?? c.metrics.depth;
      c.metrics.adds = sampleValue(samples, 'workqueue_adds_total', l) ?? c.metrics.adds;
      c.metrics.retries = sampleValue(samples, 'workqueue_retries_total', l) ?? c.metrics.retries;
      c.maxConcurrentReconciles =
        sampleValue(samples, 'controller_runtime_max_concurrent_reconciles', {
          controller: c.name,
        }) ?? c.maxConcurrentReconciles;
    }
  }

  /** The Work Queue of each controller at wall-clock time `now`, in the runtime's shape. */
  snapshots(now: number): Array<QueueSnapshot & { depth: number }> {
    return this.all()
      .filter((c) => c.name)
      .map((c) => {
        const processing = [...c.open.values()].map((t) => ({ key: t.key, since: t.start }));
        const waiting: QueueSnapshot['waiting'] = [];
        const due: string[] = [];
        for (const [key, w] of c.waiting) {
          if (w.readyAt > now) waiting.push({ key, readyAt: w.readyAt, reason: w.reason });
          else due.push(key);
        }
        const busy = new Set(processing.map((p) => p.key));
        const queued = [...new Set([...c.queued, ...due])].filter((k) => !busy.has(k));
        return {
          controller: c.name,
          at: now,
          queued: queued.map((key) => ({ key })),
          waiting,
          processing,
          retries: [...c.failures].map(([key, count]) => ({ key, count })),
          suspended: [],
          workers: c.maxConcurrentReconciles,
          activeWorkers: processing.length,
          depth: c.metrics.depth,
        };
      });
  }
}

/**
 * A key reconciled for the first time with no write of it seen: the informer's initial list (or
 * the object's creation) gave the controller a Create event of it.
 */
function initialListed(c: ObservedController, key: string, at: number): Trigger {
  const [namespace, name] = key.includes('/') ? key.split('/') : ['', key];
  if (!c.kind) return { at, kind: 'event' };
  return {
    at,
    kind: 'event',
    cause: {
      handler: 'for',
      event: 'create',
      object: {
        apiVersion: c.group,
        kind: c.kind,
        ...(namespace ? { namespace } : {}),
        name,
      },
    },
  };
}

/** controller-runtime's default per-item backoff: 5 ms · 2^(failures−1), capped at 1000 s. */
function backoffAfter(c: ObservedController, key: string, at: number): NextAction {
  const n = (c.failures.get(key) ?? 0) + 1;
  c.failures.set(key, n);
  const delayMs = Math.min(DEFAULT_BASE_DELAY_MS * 2 ** (n - 1), DEFAULT_MAX_DELAY_MS);
  return {
    action: 'rateLimited',
    delayMs,
    at: at + delayMs,
    reason: { kind: 'backoff', attempt: n },
  };
}

function summaryOf(t: ReconcileTrace): string {
  switch (t.outcome) {
    case 'success':
      return 'Reconcile successful';
    case 'requeue_after':
      return `requeue after ${t.result?.requeueAfter} ms`;
    case 'requeue':
      return 'requeue (rate limited)';
    case 'terminal':
      return `terminal error: ${t.error?.message}`;
    default:
      return `error: ${t.error?.message}`;
  }
}

/** The object name the request's webhook calls were asked about, if any. */
function webhookNamed(ev: AuditEvent): string {
  return ev.webhookCalls?.find((c) => c.name)?.name ?? '';
}

function namesKey(call: ApiCall, t: ReconcileTrace): boolean {
  return call.namespace === t.request.namespace && call.name === t.request.name;
}

function isWrite(v: Verb): boolean {
  return v === 'create' || v === 'update' || v === 'patch' || v === 'delete';
}

function eventOf(v: Verb): EventKind {
  return v === 'create' ? 'create' : v === 'delete' ? 'delete' : 'update';
}

function toVerb(v: AuditEvent['verb']): Verb {
  return v === 'deletecollection' ? 'delete' : v === 'watch' ? 'list' : v;
}
