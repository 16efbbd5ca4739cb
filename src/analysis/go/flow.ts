/**
 * Control flow inside one function body, read off the syntax tree: can execution go on from one
 * point to another? Go's structured statements make this a question about the two points' common
 * ancestor (two arms of an `if`, two cases of a `switch` never follow each other) and about what
 * lies between them (a `return` or `panic` in a block that the later point is not in ends every
 * path through that block). A loop that holds both points lets the earlier one follow the later.
 *
 * The answers are "may reach": a path exists in the syntax, whatever the conditions say.
 * A function literal's body is taken as run where it is written (closures handed to
 * retry.RetryOnConflict or CreateOrUpdate are), and a `return` inside it ends only the literal.
 */
import { contains, field, named, statements, type Node } from './syntax';

const CASES = new Set(['expression_case', 'type_case', 'default_case', 'communication_case']);
const SWITCHES = new Set([
  'expression_switch_statement',
  'type_switch_statement',
  'select_statement',
]);

/** A case's own statements (its values and `case` expressions are named children too). */
export function caseStatements(c: Node): Node[] {
  return statements(c).filter((x) => x.parent?.type === 'statement_list');
}

/** The `case` and `default` clauses of a switch or select. */
export function casesOf(stmt: Node): Node[] {
  return named(stmt).filter((c) => CASES.has(c.type));
}

/**
 * Does this statement end every path through it (return, panic, goto, an if/else whose arms both
 * do, a switch with a default, or a select, whose every case does)?
 */
export function terminates(stmt: Node): boolean {
  switch (stmt.type) {
    case 'return_statement':
    case 'goto_statement':
      return true;
    case 'expression_statement':
      return /^panic\(/.test(stmt.text);
    case 'block':
      return statements(stmt).some(terminates);
    case 'if_statement': {
      const cons = field(stmt, 'consequence');
      const alt = field(stmt, 'alternative');
      return !!cons && !!alt && terminates(cons) && terminates(alt);
    }
    case 'labeled_statement':
      return named(stmt).some((c) => c.type !== 'label_name' && terminates(c));
    default:
      if (!SWITCHES.has(stmt.type)) return false;
      {
        const cases = casesOf(stmt);
        const exhaustive =
          stmt.type === 'select_statement' || cases.some((c) => c.type === 'default_case');
        return exhaustive && cases.every((c) => caseStatements(c).some(terminates));
      }
  }
}

/**
 * Does this statement end the path through the rest of its block and past the statements around
 * it, up to the loop it jumps to? `terminates`, plus `continue` and a labelled `break` (a plain
 * `break` only leaves the switch or loop it is in, and the code after that still runs). Not for
 * "may reach" questions across a loop: the jump lands back in the loop or after it.
 */
export function endsPath(stmt: Node): boolean {
  if (stmt.type === 'continue_statement') return true;
  if (stmt.type === 'break_statement') return named(stmt).some((c) => c.type === 'label_name');
  return terminates(stmt);
}

/** The direct child of `ancestor` that contains `node`. */
function childToward(ancestor: Node, node: Node): Node | null {
  return ancestor.children.find((c) => contains(c, node)) ?? null;
}

/**
 * Walking up from `from` while `within(parent)` holds: is there, in one of those blocks, a
 * statement after `from`'s own that ends every path (so nothing past that block runs after
 * `from`)? Blocks of a function literal are skipped: its `return` hands control back to the code
 * around it.
 */
function cutOff(from: Node, within: (block: Node) => boolean): boolean {
  const chain: Node[] = [];
  for (let x: Node = from; x.parent && within(x.parent); x = x.parent) chain.push(x);
  // Blocks up to the outermost function literal on the way belong to closures: skip them.
  let start = 0;
  chain.forEach((x, i) => {
    if (x.parent?.type === 'func_literal') start = i + 1;
  });
  for (const x of chain.slice(start)) {
    const p = x.parent!;
    if (p.type !== 'statement_list' && p.type !== 'block') continue;
    const i = p.children.indexOf(x);
    if (p.children.slice(i + 1).some((s) => s.isNamed && terminates(s))) return true;
  }
  return false;
}

/** The innermost `for` below `body` that contains both nodes. */
function commonLoop(a: Node, b: Node, body: Node): Node | null {
  for (let n = a.parent; n && n.id !== body.id; n = n.parent) {
    if (n.type === 'func_literal') return null;
    if (n.type === 'for_statement' && contains(n, b)) return n;
  }
  return null;
}

/** May execution reach `to` after `from` in the function whose body is `body`? */
export function reaches(body: Node, from: Node, to: Node): boolean {
  if (contains(from, to) || contains(to, from)) return from.startIndex <= to.startIndex;
  if (to.startIndex < from.endIndex) {
    // Earlier in the text: only through the back edge of a loop around both.
    const loop = commonLoop(from, to, body);
    return !!loop && !cutOff(from, (p) => p.id !== loop.id);
  }
  if (cutOff(from, (p) => !contains(p, to))) return false;
  // At the common ancestor: two arms of an if, or two cases of a switch, exclude each other.
  let lca: Node | null = from.parent;
  while (lca && !contains(lca, to)) lca = lca.parent;
  if (!lca) return false;
  const a = childToward(lca, from);
  const b = childToward(lca, to);
  if (!a || !b) return true;
  if (lca.type === 'if_statement') {
    const arms = [field(lca, 'consequence')?.id, field(lca, 'alternative')?.id];
    return !(arms.includes(a.id) && arms.includes(b.id));
  }
  if (CASES.has(a.type) && CASES.has(b.type)) {
    const loop = commonLoop(from, to, body);
    return !!loop && !cutOff(from, (p) => p.id !== loop.id);
  }
  return true;
}
