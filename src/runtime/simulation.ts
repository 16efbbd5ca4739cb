/**
 * A whole simulation, as `reconcile-studio simulate` runs it: a fresh fake cluster (built-in
 * controllers on) on a virtual clock from t=0, the manifests applied, the reconciler loaded and
 * started, the clock run to the end of the duration; then the report of ARCHITECTURE §5 —
 * reconciles with their API calls, metrics, the cluster's Events and the findings. When the
 * reconciler's worker fails (process.exit, out of memory, a crash, a hang) the controller stops
 * there, as a Go operator that died or wedged would, and the result says where.
 */
import { createCluster } from '../cluster/builtins';
import type { KubeObject } from '../cluster/apimachinery/types';
import { loadManifests } from '../cluster/manifests';
import { VirtualClock } from '../util/clock';
import type { Controller } from './controller';
import { analyze, type ClusterEvent, type Finding } from './findings';
import { loadReconciler, type LoadOptions } from './loader';
import { Manager } from './manager';
import { FaultyApiServer } from './faultyapiserver';
import { FaultInjector, type FaultRule } from '../cluster/faults';
import type { Request } from './reconcile';
import type { ReconcileTrace, TraceError } from './trace';
import { WORKER_FAILURES } from './workerprotocol';

export interface SimulationOptions {
  reconciler: string;
  manifests?: string[];
  durationMs: number;
  /** Run the reconciler in a worker thread (default true). */
  isolate?: boolean;
  hangTimeoutMs?: LoadOptions['hangTimeoutMs'];
  memoryLimitMb?: LoadOptions['memoryLimitMb'];
  podReadyDelayMs?: number;
  /** Delay of watch events reaching the informer cache (ms of virtual time). */
  propagationDelayMs?: number;
  /** Faults (cluster/faults.ts) injected into the reconciler's API calls. */
  faults?: FaultRule[];
  /** Seed of the faults' `probability` draws (default 1). */
  seed?: number;
}

export interface ReconcileRecord {
  request: Request;
  start: number;
  end: number;
  result: { requeue: boolean; requeueAfter: number };
  error: string | null;
  calls: Array<{
    verb: string;
    resource: string;
    namespace: string;
    name: string;
    subresource: string;
    code: number;
    /** The injected fault that failed or delayed the call. */
    fault?: string;
  }>;
}

export interface SimulationMetrics {
  controller_runtime_reconcile_total: {
    success: number;
    error: number;
    requeue: number;
    requeue_after: number;
  };
  controller_runtime_reconcile_errors_total: number;
  controller_runtime_terminal_reconcile_errors_total: number;
  controller_runtime_reconcile_panics_total: number;
  workqueue_adds_total: number;
  workqueue_retries_total: number;
  workqueue_depth: number;
  workqueue_queue_duration_seconds: { count: number; sum: number; p50: number; p99: number };
  workqueue_work_duration_seconds: { count: number; sum: number };
  controller_runtime_reconcile_time_seconds: { count: number; sum: number };
}

export interface SimulationEvent {
  type: string;
  reason: string;
  message: string;
  involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
}

export interface SimulationReport {
  reconciles: ReconcileRecord[];
  metrics: SimulationMetrics;
  events: SimulationEvent[];
  findings: Array<{ kind: string; request: Request | null; message: string; evidence: unknown }>;
}

export interface SimulationResult {
  report: SimulationReport;
  /** Everything else, for the readable report and for tests. */
  traces: ReconcileTrace[];
  findings: Finding[];
  manifestErrors: Array<{ file: string; line: number; message: string }>;
  applied: number;
  controller: string;
  durationMs: number;
  prometheus: string;
  /** The objects of the reconciler's `for` type at the end (the chaos report compares them). */
  objects: KubeObject[];
  /** The objects of its `owns` types at the end. */
  owned: KubeObject[];
  /** The reconcile whose worker failed; the controller stopped after it. */
  workerFailure?: { at: number; key: string; error: TraceError };
}

export async function simulate(opts: SimulationOptions): Promise<SimulationResult> {
  const clock = new VirtualClock(0);
  const cluster = createCluster({
    clock,
    controllers: true,
    ...(opts.podReadyDelayMs !== undefined ? { podReadyDelayMs: opts.podReadyDelayMs } : {}),
  });
  const loaded = await loadReconciler(opts.reconciler, {
    isolate: opts.isolate ?? true,
    hangTimeoutMs: opts.hangTimeoutMs,
    memoryLimitMb: opts.memoryLimitMb,
  });
  const mgr = new Manager({
    api: opts.faults?.length
      ? new FaultyApiServer(cluster, new FaultInjector(opts.faults, opts.seed))
      : cluster,
    clock,
    stepper: false,
    ...(opts.propagationDelayMs ? { propagationDelayMs: opts.propagationDelayMs } : {}),
  });
  try {
    const manifests = opts.manifests?.length
      ? loadManifests(cluster, opts.manifests)
      : { applied: [], errors: [] };
    await clock.advance(0); // let the CRDs become servable before the informers list
    const ctrl = mgr.addReconciler(loaded.definition, loaded.reconcile);
    let workerFailure: SimulationResult['workerFailure'];
    let stopping: Promise<void> | undefined;
    ctrl.on('reconcileEnd', (t) => {
      if (workerFailure || !t.error?.name || !WORKER_FAILURES.has(t.error.name)) return;
      workerFailure = { at: t.end ?? t.start, key: t.key, error: t.error };
      stopping = mgr.stop();
    });
    mgr.start();
    await clock.runUntil(opts.durationMs);
    await (stopping ?? mgr.stop());
    const events = (cluster.list({ apiVersion: 'v1', kind: 'Event' }).items as ClusterEvent[]).map(
      (e) => e,
    );
    const findings = analyze({
      controller: ctrl,
      forType: loaded.definition.for,
      api: cluster,
      events,
      durationMs: opts.durationMs,
    });
    return {
      report: buildReport(ctrl, events, findings),
      traces: ctrl.traces,
      findings,
      manifestErrors: manifests.errors,
      applied: manifests.applied.length,
      controller: ctrl.name,
      durationMs: opts.durationMs,
      prometheus: mgr.metricsText(),
      objects: cluster.list(loaded.definition.for).items,
      owned: (loaded.definition.owns ?? []).flatMap((t) => cluster.list(t).items),
      ...(workerFailure ? { workerFailure } : {}),
    };
  } finally {
    await loaded.dispose();
    cluster.close();
  }
}

function buildReport(
  ctrl: Controller,
  events: ClusterEvent[],
  findings: Finding[],
): SimulationReport {
  const m = ctrl.metrics;
  const q = { name: ctrl.name };
  const l = { controller: ctrl.name };
  const reg = ctrl.registry;
  const qm = {
    latency: reg.histogram('workqueue_queue_duration_seconds', '', []),
    work: reg.histogram('workqueue_work_duration_seconds', '', []),
  };
  return {
    reconciles: ctrl.traces.map((t) => ({
      request: { namespace: t.request.namespace, name: t.request.name },
      start: t.start,
      end: t.end ?? t.start,
      result: { requeue: !!t.result?.requeue, requeueAfter: t.result?.requeueAfter ?? 0 },
      error: t.error ? t.error.message : null,
      calls: t.calls.map((c) => ({
        verb: c.verb,
        resource: c.resource,
        namespace: c.namespace,
        name: c.name,
        subresource: c.subresource,
        code: c.code,
        ...(c.fault !== undefined ? { fault: c.fault } : {}),
      })),
    })),
    metrics: {
      controller_runtime_reconcile_total: {
        success: m.reconcileTotal.get({ ...l, result: 'success' }),
        error: m.reconcileTotal.get({ ...l, result: 'error' }),
        requeue: m.reconcileTotal.get({ ...l, result: 'requeue' }),
        requeue_after: m.reconcileTotal.get({ ...l, result: 'requeue_after' }),
      },
      controller_runtime_reconcile_errors_total: m.reconcileErrors.get(l),
      controller_runtime_terminal_reconcile_errors_total: m.terminalErrors.get(l),
      controller_runtime_reconcile_panics_total: m.reconcilePanics.get(l),
      workqueue_adds_total: reg.counter('workqueue_adds_total', '').get(q),
      workqueue_retries_total: reg.counter('workqueue_retries_total', '').get(q),
      workqueue_depth: reg.gauge('workqueue_depth', '').get(q),
      workqueue_queue_duration_seconds: {
        count: qm.latency.count(q),
        sum: qm.latency.sum(q),
        p50: qm.latency.percentile(q, 0.5) ?? 0,
        p99: qm.latency.percentile(q, 0.99) ?? 0,
      },
      workqueue_work_duration_seconds: { count: qm.work.count(q), sum: qm.work.sum(q) },
      controller_runtime_reconcile_time_seconds: {
        count: m.reconcileTime.count(l),
        sum: m.reconcileTime.sum(l),
      },
    },
    events: events.map((e) => ({
      type: e.type ?? '',
      reason: e.reason ?? '',
      message: e.message ?? '',
      involvedObject: {
        ...(e.involvedObject?.apiVersion ? { apiVersion: e.involvedObject.apiVersion } : {}),
        ...(e.involvedObject?.kind ? { kind: e.involvedObject.kind } : {}),
        ...(e.involvedObject?.namespace ? { namespace: e.involvedObject.namespace } : {}),
        ...(e.involvedObject?.name ? { name: e.involvedObject.name } : {}),
      },
    })),
    findings: findings.map((f) => ({
      kind: f.kind,
      request: f.request,
      message: f.message,
      evidence: f.evidence,
    })),
  };
}

/** `10m`, `90s`, `1h30m`, `500ms`, or a bare number of milliseconds. */
export function parseDuration(s: string): number {
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s);
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let total = 0;
  let consumed = 0;
  for (const m of s.matchAll(re)) {
    const n = Number(m[1]);
    total += n * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 'ms' | 's' | 'm' | 'h'];
    consumed += m[0].length;
  }
  if (consumed !== s.length || consumed === 0)
    throw new Error(`invalid duration "${s}" (use e.g. 10m, 90s, 1h)`);
  return total;
}
