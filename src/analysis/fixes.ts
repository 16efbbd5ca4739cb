/**
 * Builders for quick-fix edits. Go fixes must come out as gofmt would print them: tabs for
 * indentation, the statement's own indentation repeated, one statement per line.
 */
import type { Fix, TextEdit } from './diagnostics';
import { importName, type GoFile } from './go/package';
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

/**
 * The edit that imports `path` (null when the file already does), placed as gofmt keeps it:
 * sorted into the group of imports that share its first path element's host (`sigs.k8s.io/...`
 * beside its kin), or as a new group at the end of the import block.
 */
/**
 * How `file` can name the package at `path`: its import name, or — when it is not imported yet —
 * `name` with the edit that imports it (null when `name` is already taken by something else).
 */
export function packageName(
  file: GoFile,
  path: string,
  name: string,
): { name: string; edits: TextEdit[] } | null {
  const have = importName(file, path);
  if (have) return { name: have, edits: [] };
  const taken = file.root
    .descendantsOfType(['identifier', 'package_identifier'])
    .some((i) => i.text === name);
  const edit = taken ? null : addImport(file, path);
  return edit ? { name, edits: [edit] } : null;
}

export function addImport(file: GoFile, path: string): TextEdit | null {
  const nl = eol(file);
  const specs = file.root.descendantsOfType('import_spec');
  const pathOf = (s: Node): string =>
    s.childForFieldName('path')?.text.replace(/^["`]|["`]$/g, '') ?? '';
  if (specs.some((s) => pathOf(s) === path)) return null;
  const line = `"${path}"`;
  const list = file.root.descendantsOfType('import_spec_list')[0];
  if (!list) {
    // No parenthesized block: a line of its own after the last import, or after the package clause.
    const after =
      file.root.descendantsOfType('import_declaration').pop() ??
      file.root.descendantsOfType('package_clause')[0];
    if (!after) return null;
    const at = file.lines.range(after.endIndex, after.endIndex);
    return { range: at, newText: `${nl}${nl}import ${line}` };
  }
  const inList = specs.filter((s) => s.parent?.id === list.id);
  const host = path.split('/')[0];
  const kin = inList.filter((s) => pathOf(s).split('/')[0] === host);
  if (kin.length > 0) {
    // gofmt sorts each group by path: go before the first kin that sorts after us, if any
    // lies on a line next to the others (same group); else after the last one.
    const next = kin.find((s) => pathOf(s) > path);
    if (next) return insertBefore(file, next, [line]);
    return insertAfter(file, kin[kin.length - 1], [line]);
  }
  const last = inList[inList.length - 1];
  if (!last) return null;
  const indent = file.lines.indentAt(last.startIndex);
  return {
    range: file.lines.range(last.endIndex, last.endIndex),
    newText: `${nl}${nl}${indent}${line}`,
  };
}
