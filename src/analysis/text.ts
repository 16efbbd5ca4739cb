/**
 * Offsets ↔ positions. tree-sitter's web binding reports columns that depend on its internal
 * encoding, so every position we publish is computed here from UTF-16 string offsets instead.
 */
import type { Position, Range } from './diagnostics';

export class LineIndex {
  private readonly starts: number[] = [0];

  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) {
      if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
    }
  }

  position(offset: number): Position {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo, character: offset - this.starts[lo] };
  }

  range(start: number, end: number): Range {
    return { start: this.position(start), end: this.position(end) };
  }

  offset(pos: Position): number {
    const line = Math.min(Math.max(pos.line, 0), this.starts.length - 1);
    const next = line + 1 < this.starts.length ? this.starts[line + 1] : this.text.length + 1;
    return Math.min(this.starts[line] + pos.character, next - 1, this.text.length);
  }

  /** Leading whitespace of the line that holds `offset`: what an inserted statement must repeat. */
  indentAt(offset: number): string {
    const line = this.position(offset).line;
    const start = this.starts[line];
    let end = start;
    while (end < this.text.length && (this.text[end] === '\t' || this.text[end] === ' ')) end++;
    return this.text.slice(start, end);
  }

  get lineCount(): number {
    return this.starts.length;
  }
}
