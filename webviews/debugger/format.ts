/** Formats clock milliseconds as a compact offset, e.g. 1m05.250s, for a run on the virtual clock. */
export function formatClock(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  ms = Math.abs(ms);
  const m = Math.floor(ms / 60_000);
  const s = (ms % 60_000) / 1000;
  const secs = s.toFixed(3).padStart(6, '0');
  return m > 0 ? `${sign}${m}m${secs}s` : `${sign}${s.toFixed(3)}s`;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${(ms * 1000).toFixed(0)}µs`;
  if (ms < 1000) return `${ms.toFixed(ms < 10 ? 1 : 0)}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)}s`;
  return `${Math.floor(ms / 60_000)}m${Math.round((ms % 60_000) / 1000)}s`;
}
