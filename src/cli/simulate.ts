/**
 * `reconcile-studio simulate --reconciler FILE [--manifests PATH...] [--duration 10m] [--json]`:
 * runs a reconciler against a fresh fake cluster on the virtual clock from t=0 and reports what
 * happened — as one JSON document (ARCHITECTURE §5) or as a readable report: a timeline of the
 * reconciles, the metrics, the cluster's warning events and the findings. Exit status: 0 ran to
 * the end, 1 the reconciler could not load, a manifest failed or the reconciler's worker failed
 * (exit, out of memory, crash, hang: the run stops there), 2 usage error.
 */
import { DEFAULT_HANG_TIMEOUT_MS, DEFAULT_MEMORY_LIMIT_MB } from '../runtime/loader';
import { simulate, type SimulationResult } from '../runtime/simulation';
import { parseRunArgs } from './runargs';
import type { ReconcileTrace } from '../runtime/trace';
import { parseSeed, readFaultsFile, type FaultRule } from '../cluster/faults';

const HELP = `Usage: reconcile-studio simulate --reconciler FILE [--manifests PATH...] [--duration 10m] [--json] [--faults FILE [--seed N]]

Runs a reconciler module against a fresh fake cluster (built-in controllers on) on a virtual
clock from t=0 and reports the reconciles, metrics, events and findings.

Options:
  --reconciler FILE     the reconciler module (.ts or .js; default export { for, owns?, reconcile })
  --manifests PATH...   YAML files or folders to apply first (CRDs first); may be repeated
  --duration D          virtual time to run, e.g. 90s, 10m, 1h (default 10m)
  --json                print one JSON document instead of the readable report
  --in-process          run the reconciler in this thread (faster; a sync infinite loop cannot be stopped)
  --hang-timeout MS     wall-clock ms a reconcile (or the module's top-level code) may compute
                        without returning; then the run stops with an error (default ${DEFAULT_HANG_TIMEOUT_MS}, 0: never)
  --memory-limit MB     heap limit of the reconciler's worker thread (default ${DEFAULT_MEMORY_LIMIT_MB})
  --cache-delay MS      delay watch events reach the cache by MS of virtual time (stale reads)
  --faults FILE         inject the faults FILE describes into the reconciler's API calls
  --seed N              seed of the faults' probability draws (default 1): same seed, same run
  -h, --help            show this help`;

export async function run(argv: string[]): Promise<number> {
  const args = parseRunArgs(
    'simulate',
    argv,
    HELP,
    {
      json: { type: 'boolean' },
      'in-process': { type: 'boolean' },
      'hang-timeout': { type: 'string' },
      'memory-limit': { type: 'string' },
      'cache-delay': { type: 'string' },
      faults: { type: 'string' },
      seed: { type: 'string' },
    },
    '10m',
  );
  if (typeof args === 'number') return args;
  const { values, reconciler, manifests, durationMs } = args;
  const numbers: Record<string, number> = {};
  for (const flag of ['hang-timeout', 'memory-limit', 'cache-delay']) {
    const v = values[flag] as string | undefined;
    if (v === undefined) continue;
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 0) {
      console.error(`simulate: --${flag} must be a non-negative number, got "${v}"`);
      return 2;
    }
    numbers[flag] = n;
  }
  if (numbers['memory-limit'] === 0) {
    console.error('simulate: --memory-limit must be more than 0');
    return 2;
  }
  let faults: FaultRule[] | undefined;
  let seed: number | undefined;
  if (values.seed !== undefined) {
    const s = parseSeed(values.seed as string);
    if (typeof s === 'string') {
      console.error(`simulate: ${s}`);
      return 2;
    }
    seed = s;
  }
  if (values.faults !== undefined) {
    try {
      faults = readFaultsFile(values.faults as string);
    } catch (err) {
      console.error(`simulate: ${err instanceof Error ? err.message : String(err)}`);
      return 2;
    }
  }
  let result: SimulationResult;
  const stopOnSignal = onSignals();
  try {
    result = await simulate({
      reconciler,
      manifests,
      durationMs,
      isolate: !values['in-process'],
      hangTimeoutMs: numbers['hang-timeout'],
      memoryLimitMb: numbers['memory-limit'],
      ...(numbers['cache-delay'] ? { propagationDelayMs: numbers['cache-delay'] } : {}),
      ...(faults ? { faults } : {}),
      ...(seed !== undefined ? { seed } : {}),
    });
  } catch (err) {
    console.error(`simulate: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    stopOnSignal();
  }
  for (const e of result.manifestErrors) console.error(`${e.file}:${e.line}: ${e.message}`);
  if (values.json) {
    console.log(JSON.stringify(result.report, null, 2));
  } else {
    console.log(formatReport(result));
  }
  if (result.workerFailure) console.error(`simulate: ${describeWorkerFailure(result)}`);
  return result.manifestErrors.length || result.workerFailure ? 1 : 0;
}

/**
 * Ctrl-C or a termination signal ends the run through process.exit, so the loader's exit hook
 * removes the bundle folders (a signal's default action would skip it). Returns the uninstaller.
 */
function onSignals(): () => void {
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((sig) => {
    const h = (): void => {
      console.error(`simulate: ${sig}, stopping`);
      process.exit(128 + (sig === 'SIGINT' ? 2 : sig === 'SIGTERM' ? 15 : 1));
    };
    process.on(sig, h);
    return () => process.off(sig, h);
  });
  return () => handlers.forEach((off) => off());
}

function describeWorkerFailure(r: SimulationResult): string {
  const f = r.workerFailure!;
  const where = f.error.location ? ` (${f.error.location})` : '';
  return `the controller stopped at ${secs(f.at)}, reconciling ${f.key}: ${f.error.message}${where}`;
}

function secs(ms: number): string {
  return `${(ms / 1000).toFixed(3)}s`;
}

function fmtDelay(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function traceLine(t: ReconcileTrace): string {
  const calls = t.calls
    .map(
      (c) =>
        `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ''} ${c.code}${c.noop ? ' (no-op)' : ''}${c.fault !== undefined ? ` [fault ${c.fault}]` : ''}`,
    )
    .join(', ');
  const trig = t.triggers[0];
  const why = !trig
    ? ''
    : trig.kind !== 'event'
      ? trig.kind
      : `${trig.cause?.event} ${trig.cause?.object.kind}${trig.selfTriggered ? ' (own write)' : ''}`;
  const res = t.error
    ? `error: ${t.error.message}${t.error.location ? ` (${t.error.location})` : ''}`
    : t.result?.requeueAfter
      ? `requeueAfter ${fmtDelay(t.result.requeueAfter)}`
      : t.result?.requeue
        ? 'requeue'
        : 'ok';
  const next =
    t.next?.action === 'rateLimited' ? ` → retry in ${fmtDelay(t.next.delayMs ?? 0)}` : '';
  const line = `  ${secs(t.start).padStart(10)}  #${String(t.id).padEnd(4)} ${t.key.padEnd(24)} ${why.padEnd(26)} ${calls || '(no calls)'} → ${res}${next}`;
  return [line, ...t.warnings.map((w) => `${' '.repeat(14)}warning: ${w}`)].join('\n');
}

export function formatReport(r: SimulationResult): string {
  const out: string[] = [];
  const rep = r.report;
  out.push(
    `Simulated ${fmtDelay(r.durationMs)} of controller "${r.controller}" on a virtual clock (${r.applied} manifest objects applied).`,
  );
  if (r.workerFailure) out.push(`Stopped early: ${describeWorkerFailure(r)}.`);
  out.push('');
  out.push(`Timeline (${rep.reconciles.length} reconciles):`);
  const max = 200;
  for (const t of r.traces.slice(0, max)) out.push(traceLine(t));
  if (r.traces.length > max) out.push(`  ... ${r.traces.length - max} more`);
  out.push('');
  out.push('Metrics:');
  const m = rep.metrics;
  const tot = m.controller_runtime_reconcile_total;
  out.push(
    `  controller_runtime_reconcile_total  success=${tot.success} error=${tot.error} requeue=${tot.requeue} requeue_after=${tot.requeue_after}`,
  );
  out.push(
    `  controller_runtime_reconcile_errors_total  ${m.controller_runtime_reconcile_errors_total}`,
  );
  out.push(`  workqueue_adds_total     ${m.workqueue_adds_total}`);
  out.push(`  workqueue_retries_total  ${m.workqueue_retries_total}`);
  out.push(
    `  workqueue_queue_duration_seconds  p50=${m.workqueue_queue_duration_seconds.p50} p99=${m.workqueue_queue_duration_seconds.p99} (n=${m.workqueue_queue_duration_seconds.count})`,
  );
  const warnings = rep.events.filter((e) => e.type === 'Warning');
  out.push('');
  out.push(`Events (${rep.events.length}, ${warnings.length} warnings):`);
  for (const e of warnings.slice(0, 30)) {
    const o = e.involvedObject;
    out.push(
      `  Warning ${e.reason} ${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}: ${e.message}`,
    );
  }
  out.push('');
  out.push(`Findings (${r.findings.length}):`);
  for (const f of r.findings) {
    const req = f.request
      ? `${f.request.namespace ? `${f.request.namespace}/` : ''}${f.request.name}`
      : f.controller;
    out.push(`  [${f.severity}] ${f.kind} ${req}`);
    out.push(`      ${f.message}`);
  }
  return out.join('\n');
}
