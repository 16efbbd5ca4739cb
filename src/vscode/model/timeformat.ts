/**
 * How every view of the editor writes a time: a length of time ("1.5s", "16m40s") and a clock
 * time relative to the session's start ("t+5.214s"). One place, used by the Reconcile
 * Debugger webview, the Work Queue tree and the findings' evidence, so the same moment reads the
 * same everywhere. Clock times are milliseconds on the session's clock (virtual or wall).
 */

/** A length of time: µs below a millisecond, then ms, s (three significant digits), m, h. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '—';
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms === 0) return '0ms';
  if (ms < 1) return `${Math.max(1, Math.round(ms * 1000))}µs`;
  if (ms < 10) return `${trim(ms.toFixed(1))}ms`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  if (ms < 60_000) {
    const s = ms / 1000;
    const text = trim(s.toFixed(s < 10 ? 2 : 1));
    // 59.96s rounds to "60s": past a minute reads as minutes.
    if (text !== '60') return `${text}s`;
  }
  const totalS = Math.round(ms / 1000);
  if (totalS < 3600) return `${Math.floor(totalS / 60)}m${pad2(totalS % 60)}s`;
  const totalM = Math.round(ms / 60_000);
  return `${Math.floor(totalM / 60)}h${pad2(totalM % 60)}m`;
}

/**
 * A clock time as an offset from the session's start, to the millisecond ("t+5.214s",
 * "t+1m05.250s"); `decimals` (3–6) gives more digits where times closer than a millisecond
 * must read apart.
 */
export function formatOffset(at: number, origin: number, decimals = 3): string {
  const d = at - origin;
  const sign = d < 0 ? '-' : '+';
  const abs = Math.abs(d);
  const m = Math.floor(abs / 60_000);
  let s = ((abs - m * 60_000) / 1000).toFixed(decimals);
  if (m > 0) s = s.padStart(decimals + 3, '0');
  return `t${sign}${m > 0 ? `${m}m` : ''}${s}s`;
}

/**
 * The fewest decimals (3 to 6) at which clock times that differ also read differently, each
 * compared with the one before it (a timeline's neighbouring rows).
 */
export function offsetDecimals(times: number[], origin: number): number {
  for (let d = 3; d < 6; d++) {
    let apart = true;
    for (let i = 1; i < times.length && apart; i++)
      if (
        times[i] !== times[i - 1] &&
        formatOffset(times[i]!, origin, d) === formatOffset(times[i - 1]!, origin, d)
      )
        apart = false;
    if (apart) return d;
  }
  return 6;
}

/** A count with its noun, singular or plural: "1 reconcile", "3 reconciles". */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : nouns}`;
}

function trim(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}

function pad2(n: number): string {
  return String(n).padStart(2, '0');
}
