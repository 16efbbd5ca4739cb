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
import { contains, field, statements, type Node } from './syntax';

const CASES = new Set(['expression_case', 'type_case', 'default_case', 'communication_case']);

/** Does this statement end every path through it (return, panic, goto, or an if/else that does)? */
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
    default:
      return false;
  }
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
