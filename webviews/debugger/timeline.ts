/**
 * The timeline of one key as rows a person scans: consecutive reconciles that ended the same way
 * fold into one row ("×19 same result"), and times get as many digits as it takes for
 * neighbouring rows whose times differ to read differently. Pure: no DOM, tested in plain Node.
 */
import type { ReconcileSummary } from '../../src/protocol';

export interface TimelineRow {
  /** The reconciles the row stands for, oldest first (one, or a run of the same result). */
  runs: ReconcileSummary[];
  outcome: string;
  faults?: string[];
}

/** Folds runs of consecutive finished reconciles with the same outcome and the same faults. */
export function foldTimeline(history: ReconcileSummary[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  for (const r of history) {
    const prev = rows[rows.length - 1];
    if (prev && r.end !== null && sameResult(prev.runs[prev.runs.length - 1]!, r))
      prev.runs.push(r);
    else rows.push({ runs: [r], outcome: r.outcome, ...(r.faults ? { faults: r.faults } : {}) });
  }
  return rows;
}

function sameResult(a: ReconcileSummary, b: ReconcileSummary): boolean {
  return (
    a.end !== null &&
    a.outcome === b.outcome &&
    (a.faults ?? []).join('\u0000') === (b.faults ?? []).join('\u0000')
  );
}
