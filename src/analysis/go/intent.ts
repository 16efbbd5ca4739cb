/**
 * Signs that the author chose what a rule would report, on purpose. A finding whose code says why
 * it is so tells its author nothing new, and one they cannot act on trains them to skip the
 * Problems panel; so these are not reported.
 *
 * - A comment that states intent on the statement, on the lines just above it, or (for a checked
 *   call `if err := f(); err != nil { … }`) directly in the block that handles the error:
 *   "Don't fail reconciliation if …", "best effort", "ignore the error", "intentionally", a bare "nolint" or "nolint:errcheck",
 *   "we only log this error", "this does not impact …" (the failure judged harmless).
 * - For a List across namespaces, the enclosing function's doc comment saying that its scope is
 *   the cluster: "singleton", "cluster-wide", "across all namespaces", "only one … in the cluster".
 */
import type { GoFile } from './package';
import { ancestor, enclosingStatement, field, mentions, named, type Node } from './syntax';

/** Words of a comment that says the code does this on purpose. */
const INTENT =
  /\b(?:(?:don'?t|do not|never|should not|shouldn'?t|must not) (?:fail|error|block|return (?:an? )?err(?:or)?)|(?<![-\w])ignor(?:e|ed|ing)\b|best[- ]effort|intentional(?:ly)?|on purpose|deliberate(?:ly)?|not fatal|non[- ]?fatal|nolint(?![:\w])|nolint:[\w,]*\berrcheck\b|(?:only|just) log (?:this|the|that|it)\b|(?:does not|doesn'?t|will not|won'?t) (?:impact|affect)\b)/i;

const DIRECTIVE = /reconcile-studio:ignore/;

/** A comment that leaves the matter to do ("TODO: only log this until …") states no choice. */
const PENDING = /\b(?:TODO|FIXME|XXX)\b/;

/** Words of a doc comment that says a function's scope is the whole cluster. */
const CLUSTER_SCOPE =
  /\b(?:singleton|cluster[- ]wide|across (?:all )?namespaces|(?:in|from|of) all namespaces|only one\b[^.]*\bin the cluster)/i;

/** The comment siblings directly above `node` (no blank line or statement between). */
function commentsAbove(file: GoFile, node: Node): Node[] {
  const parent = node.parent;
  if (!parent) return [];
  const siblings = named(parent);
  const out: Node[] = [];
  let line = file.lines.range(node.startIndex, node.startIndex).start.line;
  for (let i = siblings.findIndex((s) => s.id === node.id) - 1; i >= 0; i--) {
    const s = siblings[i];
    if (s.type !== 'comment') break;
    const end = file.lines.range(s.endIndex, s.endIndex).start.line;
    if (end !== line - 1) break;
    out.push(s);
    line = file.lines.range(s.startIndex, s.startIndex).start.line;
  }
  return out;
}

/** Comments trailing the first line of `stmt` (`x := f() // best effort`). */
function trailing(file: GoFile, stmt: Node): Node[] {
  const line = file.lines.range(stmt.startIndex, stmt.startIndex).start.line;
  const after = stmt.parent ? named(stmt.parent) : [];
  return [
    ...stmt.descendantsOfType('comment'),
    ...after.filter((s) => s.type === 'comment'),
  ].filter((c) => file.lines.range(c.startIndex, c.startIndex).start.line === line);
}

/**
 * The `if` that checks the error of `stmt`: the statement itself (`if err := f(); err != nil`), or
 * the one right after an assignment that it tests (`err := f()` then `if err != nil`).
 */
function checkOf(stmt: Node): Node | null {
  if (stmt.type === 'if_statement') return stmt;
  if (stmt.type !== 'short_var_declaration' && stmt.type !== 'assignment_statement') return null;
  const left = named(field(stmt, 'left'));
  const err = left[left.length - 1];
  const siblings = stmt.parent ? named(stmt.parent) : [];
  const next = siblings[siblings.findIndex((s) => s.id === stmt.id) + 1];
  const cond = next?.type === 'if_statement' ? field(next, 'condition') : null;
  return err && cond && mentions(cond, err.text) ? next : null;
}

/** The comments directly in the block that handles a checked call's error. */
function inHandler(stmt: Node, node: Node): Node[] {
  const check = checkOf(stmt);
  if (!check) return [];
  const body = field(check, 'consequence');
  if (!body || (node.startIndex >= body.startIndex && node.endIndex <= body.endIndex)) return [];
  return named(body).flatMap((c) =>
    c.type === 'statement_list'
      ? named(c).filter((s) => s.type === 'comment')
      : c.type === 'comment'
        ? [c]
        : [],
  );
}

/** Does a comment at `node`'s statement say that it is so on purpose? */
export function statedIntent(file: GoFile, node: Node): boolean {
  const stmt = enclosingStatement(node);
  if (!stmt) return false;
  const comments = [
    ...commentsAbove(file, stmt),
    ...trailing(file, stmt),
    ...inHandler(stmt, node),
  ];
  // A suppression directive names its rules (suppression.ts): one for another rule says nothing here.
  return comments.some(
    (c) => !DIRECTIVE.test(c.text) && !PENDING.test(c.text) && INTENT.test(c.text),
  );
}

/** Does the doc comment of the function holding `node` say its scope is the whole cluster? */
export function clusterScopedByDoc(file: GoFile, node: Node): boolean {
  const fn = ancestor(node, ['function_declaration', 'method_declaration']);
  return !!fn && commentsAbove(file, fn).some((c) => CLUSTER_SCOPE.test(c.text));
}
