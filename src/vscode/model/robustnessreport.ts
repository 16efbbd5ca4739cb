/**
 * The robustness report as the editor shows it: a row per fault class of `chaos` (the run, its
 * numbers against the baseline, its findings in words, the difference) and the reconcile where
 * the case went wrong, which the row's link opens the Reconcile Debugger at. No vscode import:
 * tested in plain Node.
 */
import type { RobustnessRow, RobustnessView } from '../../protocol';
import { statusWriteLost, swallowed, type ChaosCase } from '../../runtime/chaos';
import {
  baselineUnsettledWords,
  caseVerdict,
  summaryWords,
  unsettledTimeWords,
  type AnyChaosReport,
} from '../../runtime/chaosverdict';
import { cutOff } from '../../runtime/cutoff';
import type { ReconcileTrace } from '../../runtime/trace';
import { FAULT_TITLES } from './faulttitles';
import { RUNTIME_WORDS } from './reportruntime';
import { formatDuration } from './timeformat';

/** The traces of one run of the report (`fault` null for the baseline). */
export interface RecordedRun {
  fault: string | null;
  traces: ReconcileTrace[];
}

/** The report's and the simulation's finding kinds in words. */
const FINDING_WORDS: Record<string, string> = {
  'errors-swallowed': 'errors swallowed: a reconcile met an injected failure and returned success',
  'hot-loop': 'hot loop: the object was reconciled over and over by its own writes',
  'backoff-at-cap': "stuck in backoff: retries reached the rate limiter's longest delay",
  'conflict-storm': 'conflict storm: write after write refused with 409 Conflict',
  'status-error-ignored': 'status error ignored: a failed status write did not fail the reconcile',
  'status-update-requeue': 'requeued by its own status writes',
  'quota-conflict': "quota conflict: the owned objects' pods were refused by a ResourceQuota",
  'hung-reconcile': 'hung reconcile: a reconcile never returned',
  'terminal-error': 'terminal error: the reconcile gave up without a retry',
  'result-with-error': 'a Result returned together with an error (the Result is ignored)',
  // A Go operator's runs (gochaos.ts), on the real clock.
  exited: 'exited: the manager process ended before the run did',
  'not-settled':
    'not settled: the manager was still writing when the run was cut at its duration (the baseline had settled)',
};

/**
 * `lost-status` has two sources in the report: a status write that failed in a reconcile that
 * succeeded (nothing retries it), or a final status behind the baseline's. The words say which.
 */
export function findingWords(kind: string, traces: ReconcileTrace[]): string {
  if (kind === 'lost-status')
    return traces.some(statusWriteLost)
      ? 'lost status: the status write failed and the reconcile returned success'
      : "lost status: the final status differs from the baseline's";
  return FINDING_WORDS[kind] ?? kind;
}

export interface WentWrong {
  trace: ReconcileTrace;
  why: 'erred' | 'swallowed' | 'diverged';
}

/**
 * The reconcile where a case went wrong: the first that returned an error or met a failure and
 * returned success (a status write lost included); failing those, the first whose calls or
 * outcome differ from the baseline's reconcile at the same place in the run. Reconciles the end of
 * the run cut off (cutoff.ts: `context canceled` as the manager stopped) are the run's, not the
 * fault's, and left out of both.
 */
export function whereItWentWrong(
  allTraces: ReconcileTrace[],
  allBaseline: ReconcileTrace[],
): WentWrong | undefined {
  const traces = allTraces.filter((t) => !cutOff(t));
  const baseline = allBaseline.filter((t) => !cutOff(t));
  for (const t of traces) {
    if (t.error) return { trace: t, why: 'erred' };
    if (swallowed(t) || statusWriteLost(t)) return { trace: t, why: 'swallowed' };
  }
  for (let i = 0; i < traces.length; i++)
    if (i >= baseline.length || signature(traces[i]) !== signature(baseline[i]))
      return { trace: traces[i], why: 'diverged' };
  return undefined;
}

/** What two runs' reconciles are compared by: the key, each call and its answer, the outcome. */
function signature(t: ReconcileTrace): string {
  const calls = t.calls.map(
    (c) => `${c.verb} ${c.resource}/${c.subresource} ${c.namespace}/${c.name} ${c.code}`,
  );
  return `${t.key} ${calls.join(';')} ${t.outcome ?? ''}`;
}

/** "reconcile #3 of default/blog returned an error: Internal error occurred: injected fault". */
export function describeWentWrong(w: WentWrong): string {
  const t = w.trace;
  const what = `reconcile #${t.id} of ${t.key}`;
  switch (w.why) {
    case 'erred':
      return `${what} returned an error: ${t.error?.message ?? ''}`;
    case 'swallowed': {
      const failed = t.calls.find((c) => c.code >= 400 && (c.fault !== undefined || c.subresource));
      const call = failed
        ? ` (${failed.verb} ${failed.resource}${failed.subresource ? `/${failed.subresource}` : ''} → ${failed.code})`
        : '';
      return `${what} met a failure${call} and returned success`;
    }
    case 'diverged':
      return `${what} is the first to differ from the baseline's`;
  }
}

/** Controller time as every view writes a length of time; '—' when there is none. */
function formatTime(ms: number | null): string {
  return ms === null ? '—' : formatDuration(ms);
}

function signed(n: number): string {
  return n >= 0 ? `+${n}` : String(n);
}

/**
 * The row of one case, with the case's traces and the baseline's. Only a row that went wrong —
 * it did not converge, or it has findings — links to the reconcile where it did: a case that rode
 * its fault out had its failed reconciles by design (a 409 returned and retried).
 */
export function robustnessRow(
  c: ChaosCase,
  report: AnyChaosReport,
  traces: ReconcileTrace[],
  baseline: ReconcileTrace[],
): RobustnessRow {
  const verdict = caseVerdict(c, report);
  const wentWrong = verdict === 'diverged' || c.findings.length > 0;
  // A case that converged went wrong where its finding did: a failure it swallowed, if it did.
  const swallowedAt =
    verdict !== 'diverged' &&
    c.findings.some((f) => f === 'errors-swallowed' || f === 'lost-status')
      ? traces.find((t) => !cutOff(t) && (swallowed(t) || statusWriteLost(t)))
      : undefined;
  const wrong = !wentWrong
    ? undefined
    : swallowedAt
      ? { trace: swallowedAt, why: 'swallowed' as const }
      : whereItWentWrong(traces, baseline);
  return {
    fault: c.fault,
    title: FAULT_TITLES[c.fault] ?? c.fault,
    converged: c.converged,
    verdict,
    timeToConverge:
      verdict === 'converged'
        ? formatTime(c.timeToConvergeMs)
        : verdict === 'unsettled'
          ? unsettledTimeWords(report, formatDuration)
          : '—',
    reconciles: c.reconciles,
    apiCalls: c.apiCalls,
    extraReconciles: signed(c.reconciles - report.baseline.reconciles),
    extraApiCalls: signed(c.apiCalls - report.baseline.apiCalls),
    findings: c.findings.map((k) => findingWords(k, traces)),
    diff: c.diff,
    ...(wrong
      ? { wentWrong: { reconcileID: wrong.trace.reconcileID, label: describeWentWrong(wrong) } }
      : {}),
  };
}

/**
 * What a Go operator's report (`clock: 'real'`) must say next to its numbers: they are wall
 * times of one run each, and a baseline that never settled makes every case a snapshot.
 */
export function realClockNote(report: AnyChaosReport): string {
  const note =
    'Real clock: timings vary run to run (a Go operator runs against the served cluster).';
  return report.baseline.steadyAtMs === null
    ? `${note} The baseline never settled, so every run was compared as it stood when cut off: a ≈ row matched that state, which is not convergence.`
    : note;
}

/** The whole panel's view of a finished report. */
export function robustnessView(
  report: AnyChaosReport,
  runs: RecordedRun[],
  reconciler: string,
): RobustnessView {
  const baseline = runs.find((r) => r.fault === null)?.traces ?? [];
  const tracesOf = (fault: string) => runs.find((r) => r.fault === fault)?.traces ?? [];
  const b = report.baseline;
  const unsettled = baselineUnsettledWords(report, formatDuration);
  return {
    status: 'done',
    message: summaryWords(report, formatDuration),
    reconciler,
    runtime: RUNTIME_WORDS[report.clock === 'real' ? 'go' : 'typescript'],
    ...(report.clock === 'real' ? { note: realClockNote(report) } : {}),
    baseline: {
      reconciles: b.reconciles,
      apiCalls: b.apiCalls,
      steadyAt: formatTime(b.steadyAtMs),
      objects: b.objects,
      ...(unsettled ? { unsettled } : {}),
    },
    rows: report.cases.map((c) => robustnessRow(c, report, tracesOf(c.fault), baseline)),
  };
}
