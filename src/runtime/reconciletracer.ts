/**
 * The controller's tracing (not in controller-runtime): whether a watch event was caused by this
 * controller's own write, and each reconcile as a trace of phases — enqueue, dequeue, reconcile,
 * then the client's reads and writes (client.ts), then the result and what the queue does next.
 * The phases pass the stepper's gates through the ReconcileRun that records them. Why a key was
 * queued (its triggers) rides with the key in the work queue (WorkQueue.add).
 */
import type { Clock } from '../util/clock';
import { fnv1a32 } from '../util/fnv';
import type { ReconcileRun } from './client';
import { isTerminalError, thrownMessage, type Request, type Result } from './reconcile';
import {
  NO_WARNINGS,
  type ApiCall,
  type NextAction,
  type PhaseRecord,
  type ReconcileTrace,
  type TraceError,
  type Trigger,
} from './trace';

/**
 * Own writes remembered (resourceVersion → writer) until their watch event arrives; the bound is
 * for events that never come (a write outside the informer's namespace, a watch that stopped).
 */
const MAX_WRITES = 50_000;

export interface Writer {
  key: string;
  traceId: number;
}

export class ReconcileTracer {
  readonly traces: ReconcileTrace[] = [];
  private seq = 0;
  /**
   * resourceVersion → who wrote it, to recognise watch events caused by our own writes: an entry
   * lives from the write's answer to its event, so a bulk run does not hold one per write.
   */
  private readonly writes = new Map<string, Writer>();
  private lastWriter: Writer | undefined;

  constructor(
    private readonly controller: string,
    private readonly clock: Clock,
    private readonly maxTraces?: number,
  ) {}

  /**
   * The reconcile whose write produced `resourceVersion`, if it was one of ours, asked when the
   * write's watch event arrives: the write is forgotten then (a resourceVersion is written once,
   * and its event arrives once).
   */
  takeWriter(resourceVersion: string | undefined): Writer | undefined {
    if (resourceVersion === undefined || this.writes.size === 0) return undefined;
    const w = this.writes.get(resourceVersion);
    if (w !== undefined) this.writes.delete(resourceVersion);
    return w;
  }

  /** A successful write: its resourceVersion is remembered as caused by `trace`. */
  wrote(trace: ReconcileTrace, call: ApiCall): void {
    if (!call.resourceVersion) return;
    // The writes of one reconcile share their Writer (a bulk run remembers tens of thousands).
    let w = this.lastWriter;
    if (w?.traceId !== trace.id) this.lastWriter = w = { key: trace.key, traceId: trace.id };
    this.writes.set(call.resourceVersion, w);
    if (this.writes.size > MAX_WRITES) {
      const first = this.writes.keys().next().value;
      if (first !== undefined) this.writes.delete(first);
    }
  }

  /** The controller's part of its reconcileIDs (see reconcileID), hashed once. */
  private idPrefix: string | undefined;

  /** A UUID-shaped, deterministic reconcileID, so two runs of a simulation print the same. */
  private reconcileID(n: number): string {
    this.idPrefix ??= `${fnv1a32(this.controller).toString(16).padStart(8, '0')}-0000-4000-8000-`;
    // Two pieces, so not flattened (flatstring.ts): a flat copy would be no smaller.
    return this.idPrefix + n.toString(16).padStart(12, '0');
  }

  /**
   * The trace of the reconcile of `key` starting now. `triggers`: why the key was queued since its
   * last pass (the work queue keeps them with the key, see WorkQueue.add).
   */
  begin(
    key: string,
    request: Request,
    worker: number,
    queuedAt: number | undefined,
    triggers: Trigger[] | undefined,
  ): ReconcileTrace {
    const id = ++this.seq;
    const trace: ReconcileTrace = {
      id,
      reconcileID: this.reconcileID(id),
      controller: this.controller,
      request,
      key,
      worker,
      triggers: triggers ?? [],
      start: this.clock.now(),
      phases: [],
      calls: [],
      warnings: NO_WARNINGS,
    };
    // Set after the literal rather than spread into it: a spread makes V8 build the object
    // property by property, at every reconcile.
    if (queuedAt !== undefined) trace.queuedAt = queuedAt;
    this.traces.push(trace);
    if (this.maxTraces && this.traces.length > this.maxTraces) this.traces.shift();
    return trace;
  }

  /**
   * The phases before the reconciler is called: enqueue, dequeue, reconcile. A promise only when a
   * gate could hold (nothing can open one while this runs synchronously): a bulk run would
   * otherwise pay for an async call per phase group of every reconcile.
   */
  started(run: ReconcileRun): Promise<void> | undefined {
    if (run.gated) return this.startedGated(run);
    this.enqueuePhase(run);
    this.dequeuePhase(run);
    this.reconcilePhase(run);
    return undefined;
  }

  private async startedGated(run: ReconcileRun): Promise<void> {
    await run.gate(this.enqueuePhase(run), 'enter');
    await run.gate(this.dequeuePhase(run), 'enter');
    await run.gate(this.reconcilePhase(run), 'enter');
  }

  private enqueuePhase(run: ReconcileRun): PhaseRecord {
    const { trace } = run;
    return run.addPhase({
      phase: 'enqueue',
      at: trace.triggers[0]?.at ?? trace.queuedAt ?? trace.start,
      triggers: trace.triggers,
    });
  }

  private dequeuePhase(run: ReconcileRun): PhaseRecord {
    const { queuedAt } = run.trace;
    const now = this.clock.now();
    return run.addPhase(
      queuedAt !== undefined
        ? { phase: 'dequeue', at: now, queueWaitMs: now - queuedAt }
        : { phase: 'dequeue', at: now },
    );
  }

  private reconcilePhase(run: ReconcileRun): PhaseRecord {
    return run.addPhase({ phase: 'reconcile', at: this.clock.now() });
  }

  /**
   * The reconcile is over: its lists, grown by push with room for 16 entries, are copied to their
   * length (a bulk run keeps thousands of traces of eight or nine phases and a few calls).
   */
  finished(trace: ReconcileTrace): void {
    trace.phases = trace.phases.slice();
    trace.calls = trace.calls.slice();
  }

  /**
   * The result phase: what the reconciler returned and what the queue will do next. A promise
   * only when a gate could hold, as started().
   */
  decided(run: ReconcileRun, result: Result, next: NextAction): Promise<void> | undefined {
    const { trace } = run;
    trace.next = next;
    const rec = run.addPhase({
      phase: 'result',
      at: this.clock.now(),
      result,
      next,
    });
    return run.gated ? this.passResult(run, rec) : undefined;
  }

  private async passResult(run: ReconcileRun, rec: PhaseRecord): Promise<void> {
    await run.gate(rec, 'enter');
    await run.gate(rec, 'exit');
  }
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
