/**
 * Which names a function declares itself, and where each is in scope. Go resolves a name to the
 * innermost declaration: a parameter `backup *v1.Backup` hides the imported package `backup`, and
 * a function literal's parameter `r` hides the method's receiver `r`. Call resolution asks here
 * before taking an identifier for an import or for the receiver.
 */
import { descendants, field, named, type Node } from './syntax';

/** Nodes that open a scope: a block, a statement whose header declares, a case, a function. */
const SCOPES = new Set([
  'block',
  'if_statement',
  'for_statement',
  'expression_switch_statement',
  'type_switch_statement',
  'select_statement',
  'expression_case',
  'type_case',
  'default_case',
  'communication_case',
  'func_literal',
  'function_declaration',
  'method_declaration',
]);

/** Nodes that declare the identifiers they hold (up to their end, where the scope starts). */
const DECLARING = new Set([
  'short_var_declaration',
  'var_spec',
  'const_spec',
  'range_clause',
  'parameter_declaration',
  'variadic_parameter_declaration',
]);

/** One declared name: the scope it lives in, and from where on in that scope. */
interface Local {
  scope: Node;
  from: number;
}

const cache = new WeakMap<Node, Map<string, Local[]>>();

/** Every name `fnNode` declares (its parameters and results, and everything in its body). */
function localsOf(fnNode: Node): Map<string, Local[]> {
  let found = cache.get(fnNode);
  if (found) return found;
  found = new Map();
  const receiver = field(fnNode, 'receiver');
  const add = (id: Node, decl: Node): void => {
    let scope: Node | null = decl.parent;
    while (scope && !SCOPES.has(scope.type)) scope = scope.parent;
    if (!scope) return;
    const list = found!.get(id.text) ?? [];
    list.push({ scope, from: decl.endIndex });
    found!.set(id.text, list);
  };
  // One search for the declaring nodes (the tree's own descendant walk), not a walk of every
  // node in script: this runs for each function whose calls name an import or the receiver.
  for (const n of descendants(fnNode, [...DECLARING, 'type_switch_statement'])) {
    if (receiver && n.startIndex >= receiver.startIndex && n.endIndex <= receiver.endIndex)
      continue; // the receiver is not a local: callers handle it
    if (n.type === 'type_switch_statement') {
      const alias = field(n, 'alias');
      for (const c of alias ? [alias, ...named(alias)] : []) if (c.type === 'identifier') add(c, c);
      continue;
    }
    // Only the names being declared: `x, err := f(y)` declares x and err, not y.
    const holder = n.type === 'short_var_declaration' || n.type === 'range_clause';
    for (const c of named(holder ? field(n, 'left') : n)) if (c.type === 'identifier') add(c, n);
  }
  cache.set(fnNode, found);
  return found;
}

/**
 * Is `name`, at `at` in the function `fnNode`, a variable the function declares (a parameter, a
 * result, a local, a function literal's parameter)? Then it is neither an imported package nor
 * the method's receiver, whatever else carries that name.
 */
export function isLocal(fnNode: Node, name: string, at: Node): boolean {
  return (localsOf(fnNode).get(name) ?? []).some(
    (l) =>
      l.scope.startIndex <= at.startIndex &&
      at.endIndex <= l.scope.endIndex &&
      at.startIndex >= l.from,
  );
}
