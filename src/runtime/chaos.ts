/**
 * The robustness report (`reconcile-studio chaos`): a baseline simulation without faults, then
 * the same start once per fault class, each compared with the baseline's final state (the
 * objects of the reconciler's `for` and `owns` types, status included). Everything runs on the
 * virtual clock with seeded draws, so the same inputs give the same report.
 */
import { INJECTED_QUOTA, type FaultRule } from '../cluster/faults';
import type { KubeObject } from '../cluster/apimachinery/types';
import { simulate, type SimulationOptions, type SimulationResult } from './simulation';
import { diffObjects, type ApiCall, type ReconcileTrace } from './trace';

/** One fault class: a name (the report's `fault`) and the rules that provoke it. */
export interface FaultClass {
  fault: string;
  rules: FaultRule[];
}

const rule = (
  r: Omit<FaultRule, 'line' | 'match'> & { match?: FaultRule['match'] },
): FaultRule => ({
  match: {},
  ...r,
  line: 0,
});

/** The classes of the issue, each a transient fault the operator should ride out. */
export const FAULT_CLASSES: FaultClass[] = [
  {
    fault: 'write-conflict',
    rules: [
      rule({
        name: 'write-conflict',
        match: { verb: 'update', subresource: '' },
        times: 1,
        error: { code: 409 },
      }),
    ],
  },
  {
    fault: 'throttling',
    // The reconciler's writes (the informers' lists would absorb the first hits unseen).
    rules: [
      rule({
        name: 'throttling',
        match: { verb: 'update' },
        times: 3,
        error: { code: 429 },
        retryAfterSeconds: 1,
      }),
    ],
  },
  {
    fault: 'write-500',
    rules: [
      rule({
        name: 'write-500',
        match: { verb: 'update', subresource: '' },
        times: 1,
        error: { code: 500 },
      }),
    ],
  },
  {
    fault: 'status-500',
    rules: [
      rule({
        name: 'status-500',
        match: { subresource: 'status' },
        times: 1,
        error: { code: 500 },
      }),
    ],
  },
  {
    fault: 'read-timeout',
    rules: [
      rule({ name: 'read-timeout', match: { verb: 'list' }, times: 1, error: { code: 504 } }),
    ],
  },
  {
    fault: 'watch-closed',
    rules: [rule({ name: 'watch-closed', match: { verb: 'watch' }, times: 1, closeWatch: true })],
  },
  {
    fault: 'watch-410',
    rules: [rule({ name: 'watch-410', match: { verb: 'watch' }, times: 1, gone: true })],
  },
  {
    fault: 'stale-cache',
    rules: [rule({ name: 'stale-cache', match: { verb: 'watch' }, cacheLagMs: 2000 })],
  },
  {
    fault: 'quota-exhausted',
    rules: [
      rule({
        name: 'quota-exhausted',
        match: { verb: 'create' },
        times: 1,
        error: { code: 403, quota: INJECTED_QUOTA },
      }),
      rule({
        name: 'quota-exhausted',
        match: { verb: 'update', subresource: '' },
        times: 1,
        error: { code: 403, quota: INJECTED_QUOTA },
      }),
    ],
  },
];

export interface ChaosBaseline {
  reconciles: number;
  apiCalls: number;
  /** Virtual ms of the reconciler's last write that changed something (its steady state). */
  steadyAtMs: number | null;
  objects: number;
  /** The baseline's own finding kinds (a hot loop says why a Go baseline never settled). */
  findings?: string[];
  /** A Go baseline cut off unsettled: still writing, or a requeue it asked for still due. */
  cutOffBy?: 'writes' | 'requeue';
}

export interface ChaosCase {
  fault: string;
  converged: boolean;
  /** Virtual ms of the last changing write, when the run ended in the baseline's state. */
  timeToConvergeMs: number | null;
  /**
   * A Go operator's run (real clock): it stopped changing before its cut. Absent on the virtual
   * clock, where every run lasts the duration and is judged at its end.
   */
  settled?: boolean;
  reconciles: number;
  apiCalls: number;
  /** What went wrong beyond the baseline: the simulation's finding kinds and the report's own. */
  findings: string[];
  /** How the final state differs from the baseline's, one line per field ('' when converged). */
  diff: string;
}

export interface ChaosReport {
  baseline: ChaosBaseline;
  cases: ChaosCase[];
}

export type ChaosOptions = Omit<SimulationOptions, 'faults'> & {
  classes?: FaultClass[];
  /**
   * Hands over each run as it ends (`fault` null for the baseline): the editor's report keeps
   * their traces to open the debugger at the reconcile where a case went wrong.
   */
  onRun?: (fault: string | null, run: SimulationResult) => void;
};

export async function chaos(opts: ChaosOptions): Promise<ChaosReport> {
  const { classes = FAULT_CLASSES, onRun, ...sim } = opts;
  const base = await simulate(sim);
  onRun?.(null, base);
  const expected = stateOf(base);
  const baseFindings = new Set(base.findings.map((f) => f.kind));
  const baseLostStatus = base.traces.some(statusWriteLost);
  const cases: ChaosCase[] = [];
  for (const c of classes) {
    const run = await simulate({ ...sim, faults: c.rules });
    onRun?.(c.fault, run);
    const { converged, findings, diff } = judge(
      expected,
      stateOf(run),
      baseFindings,
      run,
      baseLostStatus,
    );
    cases.push({
      fault: c.fault,
      converged,
      timeToConvergeMs: converged ? lastChange(run) : null,
      reconciles: run.traces.length,
      apiCalls: apiCalls(run),
      findings,
      diff,
    });
  }
  return {
    baseline: {
      reconciles: base.traces.length,
      apiCalls: apiCalls(base),
      steadyAtMs: lastChange(base),
      objects: base.objects.length + base.owned.length,
      findings: [...baseFindings],
    },
    cases,
  };
}

/**
 * One case against the baseline, on either clock: converged when its state is the baseline's;
 * findings are the finding kinds the baseline lacks plus the report's own.
 */
export function judge(
  expected: Map<string, unknown>,
  state: Map<string, unknown>,
  baseFindings: ReadonlySet<string>,
  run: { findings: Array<{ kind: string }>; traces: ReconcileTrace[] },
  /** The baseline itself loses a status write: then only a lost status in the state counts. */
  baseLostStatus = false,
): Pick<ChaosCase, 'converged' | 'findings' | 'diff'> {
  const diff = diffStates(expected, state);
  const findings: string[] = [
    ...new Set(run.findings.map((f) => f.kind).filter((k) => !baseFindings.has(k))),
  ];
  if (run.traces.some(swallowed)) findings.push('errors-swallowed');
  if (
    (!baseLostStatus && run.traces.some(statusWriteLost)) ||
    diff.some((l) => / \.status[.[]/.test(l) || / \.status:/.test(l))
  )
    findings.push('lost-status');
  return { converged: diff.length === 0, findings, diff: diff.join('\n') };
}

/**
 * A reconcile that met an injected failure yet reported success: the error went nowhere. A 429
 * or 5xx the client retried until it succeeded was not swallowed: client-go's request retries
 * those itself when the answer says Retry-After (rest.checkWait); other codes it hands back.
 */
export function swallowed(t: ReconcileTrace): boolean {
  if (t.error) return false;
  return t.calls.some(
    (c, i) =>
      c.fault !== undefined &&
      c.code >= 400 &&
      !((c.code === 429 || c.code >= 500) && retried(c, t.calls.slice(i + 1))),
  );
}

/** The same request answered with success later on. */
function retried(c: ApiCall, later: ApiCall[]): boolean {
  return later.some(
    (r) =>
      r.code < 300 &&
      r.verb === c.verb &&
      r.resource === c.resource &&
      r.subresource === c.subresource &&
      r.namespace === c.namespace &&
      r.name === c.name,
  );
}

/** A reconcile whose status write failed yet reported success: nothing will write it again. */
export function statusWriteLost(t: ReconcileTrace): boolean {
  return !t.error && t.calls.some((c) => c.subresource === 'status' && c.code >= 400);
}

function apiCalls(r: SimulationResult): number {
  return r.traces.reduce((n, t) => n + t.calls.length, 0);
}

function lastChange(r: SimulationResult): number | null {
  let last: number | null = null;
  for (const t of r.traces)
    for (const c of t.calls)
      if (c.source === 'server' && c.code < 300 && !c.noop) last = Math.max(last ?? 0, c.at);
  return last;
}

/**
 * An object as it is compared: without what differs between two runs that reached the same
 * state (versions, uids, times, generations, managed fields).
 */
function normalize(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalize);
  if (typeof v !== 'object' || v === null) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (VOLATILE.has(k) || /(Time|Timestamp)$/.test(k)) continue;
    out[k] = normalize(x);
  }
  return out;
}

const VOLATILE = new Set([
  'resourceVersion',
  'uid',
  'generation',
  'observedGeneration',
  'managedFields',
  'selfLink',
]);

function keyOf(o: KubeObject): string {
  const ns = o.metadata.namespace;
  return `${o.kind} ${ns ? `${ns}/` : ''}${o.metadata.name ?? ''}`;
}

/**
 * The state a run ended in: the reconciler's own objects whole (their status is its to write),
 * the objects it owns without their status (written by other controllers, and naming pods whose
 * generated names differ from run to run).
 */
function stateOf(r: SimulationResult): Map<string, unknown> {
  return compareState(r.objects, r.owned);
}

/** The compared state of a reconciler's own objects and the objects they own (stateOf). */
export function compareState(objects: KubeObject[], owned: KubeObject[]): Map<string, unknown> {
  return new Map([
    ...objects.map((o) => [keyOf(o), normalize(o)] as const),
    ...owned.map((o) => {
      const { status: _status, ...rest } = o;
      return [keyOf(o), normalize(rest)] as const;
    }),
  ]);
}

function diffStates(want: Map<string, unknown>, got: Map<string, unknown>): string[] {
  const lines: string[] = [];
  for (const [k, w] of want) {
    const g = got.get(k);
    if (g === undefined) {
      lines.push(`${k}: missing`);
      continue;
    }
    for (const d of diffObjects(w, g))
      lines.push(
        `${k}: ${d.path}: ${JSON.stringify(d.before) ?? '(none)'} → ${JSON.stringify(d.after) ?? '(none)'}`,
      );
  }
  for (const k of got.keys()) if (!want.has(k)) lines.push(`${k}: not in the baseline`);
  return lines;
}
