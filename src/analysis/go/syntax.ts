/**
 * Small readers over tree-sitter-go nodes. Every rule asks the same questions ("what does this call
 * call?", "which variable does `&x` name?"), so the answers live here, once.
 */
import type { SNode } from './tree';

/** Rules read our JS copy of the tree (see tree.ts), not web-tree-sitter nodes. */
export type Node = SNode;

export function named(node: Node | null | undefined): Node[] {
  if (!node) return [];
  return node.namedChildren;
}

export function field(node: Node | null | undefined, name: string): Node | null {
  return node ? node.childForFieldName(name) : null;
}

export function descendants(node: Node | null | undefined, types: string | string[]): Node[] {
  if (!node) return [];
  return node.descendantsOfType(types);
}

export function sameNode(a: Node | null | undefined, b: Node | null | undefined): boolean {
  return !!a && !!b && a.id === b.id;
}

/** Is `inner` inside `outer` (or equal to it)? Compared by offsets: nodes are re-created on access. */
export function contains(outer: Node, inner: Node): boolean {
  return outer.startIndex <= inner.startIndex && inner.endIndex <= outer.endIndex;
}

/** Removes parentheses around an expression: `(x)` → `x`. */
export function unparen(node: Node | null): Node | null {
  let n = node;
  while (n && n.type === 'parenthesized_expression') n = named(n)[0] ?? null;
  return n;
}

/**
 * The object a key literal names: the value of `Name:` in `types.NamespacedName{Namespace: n,
 * Name: x}` (or `client.ObjectKey{…}`), or its second element when the literal is positional
 * (`{ns, name}`: NamespacedName's fields are Namespace, Name). Nested literals are not looked into.
 */
export function keyLiteralName(literal: Node): Node | null {
  const elements = named(field(literal, 'body')).filter((e) => e.type !== 'comment');
  if (elements.length > 0 && elements.every((e) => e.type !== 'keyed_element'))
    return elements.length === 2 ? (elements[1] ?? null) : null;
  for (const el of elements) {
    const [key, value] = named(el);
    if (el.type === 'keyed_element' && key?.text === 'Name') return value ?? null;
  }
  return null;
}

/** The arguments of a call, in order. */
export function callArgs(call: Node): Node[] {
  return named(field(call, 'arguments')).filter((n) => n.type !== 'comment');
}

/** For `a.b.M(...)`: operand `a.b`, method `M`. For `f(...)`: operand null, method `f`. */
export function callee(call: Node): { operand: Node | null; name: string } | null {
  const fn = unparen(field(call, 'function'));
  if (!fn) return null;
  if (fn.type === 'selector_expression') {
    return { operand: unparen(field(fn, 'operand')), name: field(fn, 'field')?.text ?? '' };
  }
  if (fn.type === 'identifier') return { operand: null, name: fn.text };
  return null;
}

/** `pkg.Func(...)` called as a qualified name, e.g. `time.Sleep` → ['time', 'Sleep']. */
export function qualifiedCallee(call: Node): [string, string] | null {
  const c = callee(call);
  if (!c || !c.operand || c.operand.type !== 'identifier') return null;
  return [c.operand.text, c.name];
}

/** The variable an argument designates: `&x` → x, `x` → x, `&x.y` → null (not a whole variable). */
export function argVar(arg: Node | undefined): string | null {
  let n = unparen(arg ?? null);
  if (n && n.type === 'unary_expression' && n.childForFieldName('operator')?.type === '&')
    n = unparen(field(n, 'operand'));
  return n && n.type === 'identifier' ? n.text : null;
}

/** The statements of a block, skipping comments. tree-sitter-go ≥0.23 wraps them in statement_list. */
export function statements(block: Node | null): Node[] {
  if (!block) return [];
  const out: Node[] = [];
  for (const c of named(block)) {
    if (c.type === 'statement_list') out.push(...named(c).filter((s) => s.type !== 'comment'));
    else if (c.type !== 'comment') out.push(c);
  }
  return out;
}

/** The nearest enclosing node of one of `types`, stopping at `stop`. */
export function ancestor(node: Node, types: string[], stop?: Node): Node | null {
  let n = node.parent;
  while (n) {
    if (types.includes(n.type)) return n;
    if (stop && n.id === stop.id) return null;
    n = n.parent;
  }
  return null;
}

/** The statement (direct child of a statement list or block) that contains `node`. */
export function enclosingStatement(node: Node): Node | null {
  let n: Node | null = node;
  while (n && n.parent) {
    const p: Node = n.parent;
    if (p.type === 'statement_list' || p.type === 'block') return n;
    n = p;
  }
  return null;
}

/** Is this node inside a function literal launched with `go`? Work there does not block Reconcile. */
export function inGoroutine(node: Node, stop: Node): boolean {
  let n = node.parent;
  while (n && n.id !== stop.id) {
    if (n.type === 'go_statement') return true;
    n = n.parent;
  }
  return scheduled(node, stop);
}

/** Callees that keep a function to run later, elsewhere: a cron job, a timer. */
const SCHEDULERS = /^(AddFunc|AddFuncWithSeconds|AddJob|Schedule|AfterFunc)$/;

/**
 * Is this node inside a function literal handed to a scheduler (`crons.AddFunc(spec, func() {...})`,
 * `time.AfterFunc`)? It runs later on another goroutine, not in this reconcile.
 */
export function scheduled(node: Node, stop: Node): boolean {
  for (let n = node.parent; n && n.id !== stop.id; n = n.parent) {
    if (n.type !== 'func_literal' || n.parent?.parent?.type !== 'call_expression') continue;
    if (SCHEDULERS.test(callee(n.parent.parent)?.name ?? '')) return true;
  }
  return false;
}

/** Is the node inside a function literal (closure) below `stop`? */
export function inFuncLiteral(node: Node, stop: Node): boolean {
  let n = node.parent;
  while (n && n.id !== stop.id) {
    if (n.type === 'func_literal') return true;
    n = n.parent;
  }
  return false;
}

/** The type's bare name: `*myv1.MyCR` → MyCR, `appsv1.Deployment` → Deployment. */
export function typeName(node: Node | null): string | null {
  let n = node;
  while (n && (n.type === 'pointer_type' || n.type === 'parenthesized_type'))
    n = named(n)[0] ?? null;
  if (!n) return null;
  if (n.type === 'qualified_type') return field(n, 'name')?.text ?? null;
  if (n.type === 'type_identifier') return n.text;
  if (n.type === 'generic_type') return typeName(field(n, 'type'));
  return null;
}

/** Does any identifier in `node` have this name? */
export function mentions(node: Node, name: string): boolean {
  if (node.type === 'identifier' && node.text === name) return true;
  if (!node.text.includes(name)) return false;
  return descendants(node, 'identifier').some((i) => i.text === name);
}
