/** The robustness report as a terminal shows it: one row per fault class against the baseline. */
import { baselineUnsettledWords, caseVerdict, type AnyChaosReport } from '../runtime/chaosverdict';

/** The converged column: a case cut off in the baseline's state is neither yes nor NO. */
const VERDICT = { converged: 'yes', diverged: 'NO', unsettled: 'unsettled' } as const;

export function formatChaos(r: AnyChaosReport): string {
  const b = r.baseline;
  const unsettled = baselineUnsettledWords(r, seconds);
  const out = [
    unsettled
      ? `Baseline: ${b.reconciles} reconciles, ${b.apiCalls} API calls, ${b.objects} objects; ${unsettled}.`
      : `Baseline: ${b.reconciles} reconciles, ${b.apiCalls} API calls, steady at ${ms(b.steadyAtMs)}, ${b.objects} objects.`,
    '',
    `${'fault'.padEnd(16)} ${'converged'.padEnd(10)} ${'at'.padEnd(10)} ${'reconciles'.padEnd(11)} ${'API calls'.padEnd(10)} findings`,
  ];
  for (const c of r.cases) {
    out.push(
      `${c.fault.padEnd(16)} ${VERDICT[caseVerdict(c, r)].padEnd(10)} ${ms(c.timeToConvergeMs).padEnd(10)} ${`${c.reconciles} (${signed(c.reconciles - b.reconciles)})`.padEnd(11)} ${`${c.apiCalls} (${signed(c.apiCalls - b.apiCalls)})`.padEnd(10)} ${c.findings.join(', ') || '-'}`,
    );
    for (const l of c.diff ? c.diff.split('\n').slice(0, 5) : []) out.push(`    ${l}`);
  }
  return out.join('\n');
}

/** A length of time in the terminal's words: "5s", "2.5s". */
export function seconds(v: number): string {
  return `${+(v / 1000).toFixed(3)}s`;
}

function ms(v: number | null): string {
  return v === null ? '-' : `${(v / 1000).toFixed(3)}s`;
}

function signed(n: number): string {
  return n >= 0 ? `+${n}` : String(n);
}
