/**
 * Builders for quick-fix edits. Go fixes must come out as gofmt would print them: tabs for
 * indentation, the statement's own indentation repeated, one statement per line.
 */
import type { Fix, TextEdit } from './diagnostics';
import type { GoFile } from './go/package';
import type { Node } from './go/syntax';

/** gofmt writes LF; a file checked out with CRLF keeps CRLF in what we insert. */
function eol(file: GoFile): string {
  return file.text.includes('\r\n') ? '\r\n' : '\n';
}

export function replaceNode(file: GoFile, node: Node, newText: string): TextEdit {
  return { range: file.lines.range(node.startIndex, node.endIndex), newText };
}

/** Inserts `lines` (already relative-indented with tabs) as statements before `stmt`. */
export function insertBefore(file: GoFile, stmt: Node, lines: string[]): TextEdit {
  const indent = file.lines.indentAt(stmt.startIndex);
  const text = lines.map((l) => `${l}${eol(file)}${indent}`).join('');
  const at = file.lines.range(stmt.startIndex, stmt.startIndex);
  return { range: at, newText: text };
}

/** Inserts `lines` as statements after `stmt`. */
export function insertAfter(file: GoFile, stmt: Node, lines: string[]): TextEdit {
  const indent = file.lines.indentAt(stmt.startIndex);
  const text = lines.map((l) => `${eol(file)}${indent}${l}`).join('');
  return { range: file.lines.range(stmt.endIndex, stmt.endIndex), newText: text };
}

/** Replaces `stmt` with a multi-line block whose inner lines are indented one tab deeper. */
export function replaceStatement(file: GoFile, stmt: Node, lines: string[]): TextEdit {
  const indent = file.lines.indentAt(stmt.startIndex);
  return replaceNode(
    file,
    stmt,
    lines.map((l, i) => (i === 0 ? l : `${indent}${l}`)).join(eol(file)),
  );
}

/** `if err := CALL; err != nil {\n\tRETURN\n}` as lines for replaceStatement/insertBefore. */
export function checkedCall(call: string, ret: string): string[] {
  return [`if err := ${call}; err != nil {`, `\t${ret}`, '}'];
}

export function fix(title: string, ...edits: TextEdit[]): Fix {
  return { title, edits };
}
