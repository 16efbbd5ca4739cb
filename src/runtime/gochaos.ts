/**
 * The robustness report for a Go operator (`reconcile-studio chaos --go DIR`): the module's
 * controller-runtime manager, built once, run unmodified against a fresh served cluster without
 * faults (the baseline) and then once per fault class of chaos.ts, each judged as chaos.ts judges
 * a TypeScript reconciler. On the real clock: a run ends when the manager has written nothing
 * for the settle window (steady) or at the duration, and the report says `"clock": "real"`.
 * Runs go one after another: a manager and its cluster each want a core.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuditEvent } from '../cluster/endpoints/audit';
import { generateServingCerts, type ServingCerts } from '../cluster/auth/certs';
import { createCluster } from '../cluster/builtins';
import type { Cluster } from '../cluster/cluster';
import { FaultInjector } from '../cluster/faults';
import { writeKubeconfigFile } from '../cluster/auth/kubeconfig';
import { loadManifests } from '../cluster/manifests';
import { startServer } from '../cluster/endpoints/server';
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import {
  compareState,
  FAULT_CLASSES,
  judge,
  type ChaosCase,
  type ChaosReport,
  type FaultClass,
} from './chaos';
import { GO_OPERATOR_USER, GoManagerProcess, freePort, type ManagerExit } from './goprocess';
import { goBuild } from './gotoolchain';
import { ObservedManager, type ObservedController } from './observedcontroller';
import { markCutOff } from './cutoff';
import { clusterFindingsSource, observedFindings, typeOf } from './observedfindings';
import type { Finding } from './findings';
import type { Sample } from './promtext';
import type { ReconcileTrace } from './trace';

/**
 * A manager that never settles (the sample's, hot-looping on the WebApp the quota starves) takes
 * all of it, ten times: 5 s keeps the sample's report near a minute. Raise it for an operator
 * whose convergence waits on a longer requeue (the sample's 5 s one after a create, plus the
 * stale-cache class's 2 s lag, needs about 7 s).
 */
export const DEFAULT_GO_DURATION_MS = 5_000;
/**
 * Quiet time that makes a run steady: longer than the stale-cache class's 2 s event lag and the
 * fake kubelet's readiness delay below, so a write still on its way is waited for.
 */
export const DEFAULT_GO_SETTLE_MS = 2_500;
/** Pods turn Ready this long after they run: what matters is the order, not the wait. */
const POD_READY_DELAY_MS = 300;
const POLL_MS = 100;

export interface GoChaosOptions {
  /** The Go module holding the manager. */
  moduleDir: string;
  /** The package to build (default `./cmd`, the scaffold's main). */
  pkg?: string;
  manifests: string[];
  /** The longest a run may take (real ms, from the manager's start). */
  durationMs?: number;
  /** A run is steady once the manager has written nothing for this long. */
  settleMs?: number;
  /** The fake kubelet's delay before a running pod is Ready (default 300 ms). */
  podReadyDelayMs?: number;
  seed?: number;
  classes?: FaultClass[];
  /** Told when each run starts ('baseline', then the fault's name). */
  onRun?: (name: string) => void;
  /** Told when each run ends, with what it recorded (`fault` null for the baseline). */
  onRunDone?: (fault: string | null, run: GoRun) => void;
  /**
   * Told the process group of each manager as it starts, and `undefined` once it is stopped: the
   * group to kill if whatever runs the report cannot wait for it to stop.
   */
  onManager?: (pid: number | undefined) => void;
  /** Stops the report: the build or the run in progress ends, its manager is stopped. */
  signal?: AbortSignal;
}

export class GoChaosCancelled extends Error {
  constructor() {
    super('The robustness report was cancelled.');
    this.name = 'GoChaosCancelled';
  }
}

export interface GoChaosReport extends ChaosReport {
  clock: 'real';
  /** How long a run was watched at most, and the quiet that made one steady (real ms). */
  durationMs: number;
  settleMs: number;
}

/** What one run of the manager left: the measures and what the cluster ended with. */
export interface GoRun {
  objects: KubeObject[];
  owned: KubeObject[];
  findings: Finding[];
  traces: ReconcileTrace[];
  reconciles: number;
  apiCalls: number;
  /** Real ms from the manager's first request to its last write that changed something. */
  lastChangeMs: number | null;
  /** The run ended because the manager had stopped writing (not at the duration). */
  steady: boolean;
  /** What kept a run cut at the duration from settling: recent writes, or a requeue due. */
  cutOffBy?: 'writes' | 'requeue';
  /** The manager exited before the run ended. */
  exit?: ManagerExit;
}

export async function goChaos(opts: GoChaosOptions): Promise<GoChaosReport> {
  const dir = mkdtempSync(join(tmpdir(), 'reconcile-studio-gochaos-'));
  try {
    const binary = join(dir, 'manager');
    const built = await goBuild({
      cwd: opts.moduleDir,
      out: binary,
      ...(opts.pkg ? { pkg: opts.pkg } : {}),
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    if (opts.signal?.aborted) throw new GoChaosCancelled();
    if (!built.ok) throw new Error(`go build failed in ${opts.moduleDir}:\n${built.output.trim()}`);
    // One CA for every run: generating it is the slowest part of starting a server.
    const certs = await generateServingCerts();
    const run = async (faults: FaultClass | undefined) => {
      if (opts.signal?.aborted) throw new GoChaosCancelled();
      opts.onRun?.(faults?.fault ?? 'baseline');
      const r = await runGoManager({ ...opts, binary, dir, certs, ...(faults ? { faults } : {}) });
      // A run cut short by the signal is not a result.
      if (opts.signal?.aborted) throw new GoChaosCancelled();
      opts.onRunDone?.(faults?.fault ?? null, r);
      return r;
    };
    const base = await run(undefined);
    if (base.exit)
      throw new Error(`the manager exited in the baseline run: ${exitText(base.exit)}`);
    const cases: ChaosCase[] = [];
    for (const c of opts.classes ?? FAULT_CLASSES) cases.push(goCase(c.fault, base, await run(c)));
    return {
      clock: 'real',
      durationMs: opts.durationMs ?? DEFAULT_GO_DURATION_MS,
      settleMs: opts.settleMs ?? DEFAULT_GO_SETTLE_MS,
      baseline: goBaseline(base),
      cases,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function goBaseline(base: GoRun): ChaosReport['baseline'] {
  return {
    reconciles: base.reconciles,
    apiCalls: base.apiCalls,
    // A manager still writing at the end of the duration never reached a steady state; one that
    // settled without changing anything was steady from its first request.
    steadyAtMs: base.steady ? (base.lastChangeMs ?? 0) : null,
    objects: base.objects.length + base.owned.length,
    findings: [...new Set(base.findings.map((f) => f.kind))],
    ...(base.steady || !base.cutOffBy ? {} : { cutOffBy: base.cutOffBy }),
  };
}

/** One fault class's run judged against the baseline, as chaos.ts judges a simulation. */
export function goCase(fault: string, base: GoRun, run: GoRun): ChaosCase {
  const verdict = judge(
    compareState(base.objects, base.owned),
    compareState(run.objects, run.owned),
    new Set(base.findings.map((f) => f.kind)),
    run,
  );
  const findings = [...verdict.findings];
  if (run.exit) findings.push('exited');
  // Cut at the duration while the baseline settled: a longer --duration may tell another story.
  else if (!run.steady && base.steady) findings.push('not-settled');
  return {
    fault,
    converged: verdict.converged,
    // A time to converge only for a run that settled into the state of a baseline that settled:
    // a run cut off still writing matched a moving state at the cut (chaosverdict.ts).
    timeToConvergeMs:
      verdict.converged && run.steady && base.steady ? (run.lastChangeMs ?? 0) : null,
    settled: run.steady,
    reconciles: run.reconciles,
    apiCalls: run.apiCalls,
    findings,
    diff: run.exit
      ? [`the manager exited: ${exitText(run.exit)}`, verdict.diff].filter(Boolean).join('\n')
      : verdict.diff,
  };
}

function exitText(x: ManagerExit): string {
  const how = x.panic ?? (x.signal ? `killed by ${x.signal}` : `exit code ${x.code}`);
  return `${how}\n${x.lastLines.slice(-10).join('\n')}`;
}

interface RunOptions extends GoChaosOptions {
  binary: string;
  dir: string;
  certs: ServingCerts;
  faults?: FaultClass;
}

/** A fresh cluster with the manifests, the manager against it until steady, what it left. */
async function runGoManager(o: RunOptions): Promise<GoRun> {
  const cluster = createCluster({ podReadyDelayMs: o.podReadyDelayMs ?? POD_READY_DELAY_MS });
  const server = await startServer({
    cluster,
    host: '127.0.0.1',
    port: 0,
    certs: o.certs,
    ...(o.faults ? { faults: new FaultInjector(o.faults.rules, o.seed) } : {}),
  });
  let proc: GoManagerProcess | undefined;
  const unsubscribe: Array<() => void> = [];
  try {
    const loaded = loadManifests(cluster, o.manifests);
    if (loaded.errors.length)
      throw new Error(loaded.errors.map((e) => `${e.file}:${e.line}: ${e.message}`).join('\n'));
    server.addUser(GO_OPERATOR_USER);
    const kubeconfig = join(o.dir, 'kubeconfig');
    writeKubeconfigFile(kubeconfig, server.kubeconfig('reconcile-studio', GO_OPERATOR_USER));
    const observed = new ObservedManager(GO_OPERATOR_USER);
    const activity = new Activity();
    unsubscribe.push(
      server.audit.subscribe((ev) => {
        observed.onAudit(ev);
        activity.onAudit(ev);
      }),
    );
    proc = new GoManagerProcess({
      // The scaffold's flags through the variable goprocess.ts sets for custom commands.
      command: `${shellQuote(o.binary)} $RECONCILE_STUDIO_MANAGER_FLAGS`,
      cwd: o.moduleDir,
      kubeconfig,
      metricsPort: await freePort(),
    });
    unsubscribe.push(proc.on('log', (e) => observed.onLog(e)));
    let exit: ManagerExit | undefined;
    unsubscribe.push(proc.on('exit', (x) => (exit = x.stopped ? undefined : x)));
    await proc.start();
    o.onManager?.(proc.pid);
    const started = Date.now();
    const durationMs = o.durationMs ?? DEFAULT_GO_DURATION_MS;
    const settleMs = o.settleMs ?? DEFAULT_GO_SETTLE_MS;
    let steady = false;
    let cutOffBy: GoRun['cutOffBy'];
    const quiet = () => {
      const now = Date.now();
      if (!activity.steady(now, settleMs)) return !(cutOffBy = 'writes');
      return !(cutOffBy = requeueDue(observed, now + settleMs) ? 'requeue' : undefined);
    };
    while (!exit && !o.signal?.aborted && !(steady = quiet()))
      if (Date.now() - started >= durationMs) break;
      else await new Promise((r) => setTimeout(r, POLL_MS));
    const metrics =
      exit || o.signal?.aborted ? undefined : await proc.scrape().catch(() => undefined);
    const stoppedAt = Date.now();
    await proc.stop();
    observed.flush();
    const forTypes = observed
      .all()
      .map((c) => typeOf(cluster, c.group, c.kind))
      .filter((t): t is TypeRef => t !== undefined);
    const objects = forTypes.flatMap((t) => cluster.list(t).items);
    const traces = observed.all().flatMap((c) => c.traces);
    // The reconciles the stop interrupted end with its context canceled: the run's end, not a fault's.
    markCutOff(traces, stoppedAt);
    return {
      objects,
      owned: ownedBy(cluster, objects),
      findings: observedFindings(observed, clusterFindingsSource(cluster)),
      traces,
      reconciles: (metrics && reconcileTotal(metrics)) ?? traces.length,
      apiCalls: activity.calls,
      lastChangeMs: activity.lastChangeMs,
      steady,
      ...(!steady && cutOffBy ? { cutOffBy } : {}),
      ...(exit ? { exit } : {}),
    };
  } finally {
    unsubscribe.forEach((u) => u());
    await proc?.stop();
    if (proc) o.onManager?.(undefined);
    await server.close();
    cluster.close();
  }
}

/**
 * What the cluster's audit record says the manager (its own user) did: its resource requests,
 * when it first asked, and when it last wrote something that changed the cluster or failed.
 * A no-op write (an update that stores nothing new) is not activity: a steady operator may
 * repeat one on every pass.
 */
export class Activity {
  calls = 0;
  private first: number | undefined;
  private lastWrite: number | undefined;
  private lastChange: number | undefined;
  private readonly seen = new Set<string>();

  constructor(private readonly user = GO_OPERATOR_USER) {}

  onAudit(ev: AuditEvent): void {
    if (ev.user !== this.user) return;
    this.first ??= ev.start;
    if (!ev.resource || this.seen.has(ev.auditID)) return;
    // A watch is recorded when it opens; it counts once.
    this.seen.add(ev.auditID);
    this.calls++;
    if (!WRITES.has(ev.verb)) return;
    const noop =
      ev.code < 300 &&
      ev.before !== undefined &&
      ev.after !== undefined &&
      ev.before.metadata.resourceVersion === ev.after.metadata.resourceVersion;
    if (noop) return;
    this.lastWrite = Math.max(this.lastWrite ?? 0, ev.end ?? ev.start);
    if (ev.code < 300) this.lastChange = Math.max(this.lastChange ?? 0, ev.start);
  }

  /** The manager has asked the cluster something and written nothing for `settleMs`. */
  steady(now: number, settleMs: number): boolean {
    if (this.first === undefined) return false;
    return now - Math.max(this.first, this.lastWrite ?? 0) >= settleMs;
  }

  get lastChangeMs(): number | null {
    return this.lastChange === undefined || this.first === undefined
      ? null
      : this.lastChange - this.first;
  }
}

const WRITES = new Set<AuditEvent['verb']>([
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
]);

/**
 * A reconcile the manager has scheduled for `t` or before (a RequeueAfter or a backoff, from its
 * logs) that has not started yet: a manager waiting on one is not steady, however quiet it is.
 * A reconcile of the key in between takes its place, as in controller-runtime's priority queue,
 * where a key has one entry and an add that is ready now replaces a later one.
 */
export function requeueDue(
  observed: { all(): Array<Pick<ObservedController, 'waiting'>> },
  t: number,
): boolean {
  return observed.all().some((c) => [...c.waiting.values()].some((w) => w.readyAt <= t));
}

/** controller-runtime's `controller_runtime_reconcile_total`, every controller and result. */
export function reconcileTotal(samples: Sample[]): number | undefined {
  const mine = samples.filter((s) => s.name === 'controller_runtime_reconcile_total');
  return mine.length ? mine.reduce((n, s) => n + s.value, 0) : undefined;
}

/** The objects a controller owns: those whose controller reference names one of `owners`. */
export function ownedBy(cluster: Cluster, owners: KubeObject[]): KubeObject[] {
  const uids = new Set(owners.map((o) => o.metadata.uid));
  const out: KubeObject[] = [];
  for (const r of cluster.resources()) {
    const type = { apiVersion: r.group ? `${r.group}/${r.version}` : r.version, kind: r.kind };
    for (const o of cluster.list(type).items)
      if (o.metadata.ownerReferences?.some((ref) => ref.controller && uids.has(ref.uid)))
        out.push(o);
  }
  return out;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
