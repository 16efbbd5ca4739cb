/**
 * Folds a manager's repeated log lines in its output: a hot loop logs "Reconciling" and
 * "Reconcile successful" for the same keys dozens of times a second. A line of a shape shown
 * less than `windowMs` ago (the same level, logger, message and fields, but for its time and
 * reconcileID) is held back and counted; the count is said in one line when a new shape comes,
 * or at `flush` (the output calls it every window), so the output shows each kind of line once a
 * window with how many more there were.
 */
import type { ZapEntry } from '../../runtime/zaplog';
import { formatDuration } from './timeformat';

/** What makes two entries "the same line": everything but their time and reconcileID. */
export function zapShape(e: ZapEntry): string {
  const { ts: _ts, reconcileID: _id, ...fields } = e.fields;
  return JSON.stringify([e.level, e.logger ?? '', e.msg, fields]);
}

export class LogRepeats {
  /** When each shape was last shown (ms). */
  private readonly shown = new Map<string, number>();
  /** Held back since the last summary: how many lines, of how many shapes, since when. */
  private held = 0;
  private readonly heldShapes = new Set<string>();
  private heldSince = 0;

  constructor(private readonly windowMs = 5_000) {}

  /** The lines to show for `line` (of `shape`) at `now`: none while it repeats. */
  feed(shape: string, line: string, now: number): string[] {
    const last = this.shown.get(shape);
    if (last !== undefined && now - last < this.windowMs) {
      if (this.held === 0) this.heldSince = now;
      this.held++;
      this.heldShapes.add(shape);
      return [];
    }
    const out = this.flush(now);
    this.shown.set(shape, now);
    out.push(line);
    return out;
  }

  /** The summary of what was held back, if anything was (and forgets it). */
  flush(now: number): string[] {
    if (this.held === 0) return [];
    const kinds = this.heldShapes.size;
    const line = `… and ${this.held} more like the ${kinds === 1 ? 'line' : `${kinds} kinds of line`} above, over ${formatDuration(now - this.heldSince)} (repeats folded)`;
    this.held = 0;
    this.heldShapes.clear();
    // Shapes not seen for a window are forgotten: the map stays as small as the log's variety.
    for (const [shape, at] of this.shown) if (now - at >= this.windowMs) this.shown.delete(shape);
    return [line];
  }
}
