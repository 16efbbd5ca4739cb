/**
 * The analyzer's output, independent of LSP and of the command line: both map a Finding to their
 * own shape. Positions are 0-based lines and UTF-16 columns, as LSP counts them, so the server can
 * hand them over unchanged and the CLI adds one.
 */
export type Severity = 'error' | 'warning' | 'information' | 'hint';
export type SeveritySetting = Severity | 'off';

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

export interface TextEdit {
  range: Range;
  newText: string;
}

/** A quick fix: edits to one file (the finding's own). */
export interface Fix {
  title: string;
  edits: TextEdit[];
}

export interface Finding {
  file: string;
  rule: string;
  severity: Severity;
  message: string;
  range: Range;
  fixes: Fix[];
}

/**
 * A finding's message is one short sentence (at most HEADLINE_MAX characters: the Problems panel
 * and the editor's squiggle show it) followed by the why and the fix, which the hover shows.
 */
export const HEADLINE_MAX = 100;

/** The message's first sentence: up to the first `. ` (a period inside `a.b` does not end it). */
export function headline(message: string): string {
  const m = /^(.+?[.!?])\s+(?=\S)/s.exec(message);
  return m ? m[1] : message;
}

/** What follows the first sentence (empty when the message is one sentence). */
export function detail(message: string): string {
  return message.slice(headline(message).length).trim();
}

/** Order by file, then position, so every consumer prints findings the same way. */
export function compareFindings(a: Finding, b: Finding): number {
  if (a.file !== b.file) return a.file < b.file ? -1 : 1;
  return (
    a.range.start.line - b.range.start.line ||
    a.range.start.character - b.range.start.character ||
    (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0)
  );
}

export const SEVERITY_RANK: Record<Severity, number> = {
  error: 3,
  warning: 2,
  information: 1,
  hint: 0,
};
