/**
 * What a robustness report can claim about each case, and the words for what it cannot, shared by
 * the CLI (`chaos`, `chaos --go`) and the editor's panel so the two never disagree. On the virtual
 * clock every run lasts its duration and is judged at the end. On the real clock (a Go operator) a
 * run ends when its manager settles or is cut off at the duration: a case whose run, or the
 * baseline's, was cut off matched or missed a moving state, so "converged" is not known.
 */
import type { ChaosCase, ChaosReport } from './chaos';

/** A report as either runner hands it: a Go report adds its clock and how long it watched. */
export type AnyChaosReport = ChaosReport & {
  clock?: 'real';
  /** The longest a run was watched (real ms). */
  durationMs?: number;
  /** The quiet time that made a run steady (real ms). */
  settleMs?: number;
};

/**
 * `converged`: ended in the baseline's settled state; `diverged`: ended elsewhere; `unsettled`:
 * ended in the baseline's state as it stood, but the case or the baseline was cut off still
 * writing, so that is a snapshot, not a convergence.
 */
export type CaseVerdict = 'converged' | 'diverged' | 'unsettled';

export function baselineSettled(r: AnyChaosReport): boolean {
  return r.clock !== 'real' || r.baseline.steadyAtMs !== null;
}

export function caseVerdict(c: ChaosCase, r: AnyChaosReport): CaseVerdict {
  if (!c.converged) return 'diverged';
  if (r.clock === 'real' && (c.settled === false || !baselineSettled(r))) return 'unsettled';
  return 'converged';
}

/** How a report writes a length of time ("5 s" in the editor, "5.000s" in a terminal). */
export type FormatMs = (ms: number) => string;

function cutAt(r: AnyChaosReport, fmt: FormatMs): string {
  return r.durationMs !== undefined ? `after ${fmt(r.durationMs)}` : 'at its duration';
}

/**
 * Why the baseline has no steady time, or undefined when it settled: its run was cut off still
 * writing, after how long, and its own hot loop when it had one.
 */
export function baselineUnsettledWords(r: AnyChaosReport, fmt: FormatMs): string | undefined {
  if (baselineSettled(r)) return undefined;
  const quiet =
    r.settleMs !== undefined
      ? ` (a run settles after ${fmt(r.settleMs)} with no write and no requeue due)`
      : '';
  const loop = r.baseline.findings?.includes('hot-loop')
    ? '; it hot-loops on its own, so it cannot settle'
    : '';
  const what =
    r.baseline.cutOffBy === 'requeue'
      ? 'a requeue the manager had asked for was still due'
      : 'the manager was still writing';
  return `never settled: ${what} when its run was cut off ${cutAt(r, fmt)}${quiet}${loop}`;
}

/** What the time column says of a case that ended in the baseline's state without settling. */
export function unsettledTimeWords(r: AnyChaosReport, fmt: FormatMs): string {
  return r.durationMs !== undefined ? `not settled in ${fmt(r.durationMs)}` : 'not settled';
}

/** The report in one sentence or two: how many cases diverged, and how many could not be told. */
export function summaryWords(r: AnyChaosReport, fmt: FormatMs): string {
  const n = r.cases.length;
  const count = (v: CaseVerdict) => r.cases.filter((c) => caseVerdict(c, r) === v).length;
  const diverged = count('diverged');
  const unsettled = count('unsettled');
  const first = diverged
    ? `${diverged} of ${n} fault classes did not converge to the baseline's state.`
    : unsettled
      ? `No fault class ended away from the baseline's state.`
      : `All ${n} fault classes converged to the baseline's state.`;
  if (!unsettled) return first;
  const why = baselineSettled(r)
    ? `their runs were cut off ${cutAt(r, fmt)} still writing`
    : `the baseline never settled: every run was compared as it stood when cut off ${cutAt(r, fmt)}`;
  return `${first} ${unsettled} of ${n} matched the baseline's state without settling, so whether they converge is not known: ${why}.`;
}
