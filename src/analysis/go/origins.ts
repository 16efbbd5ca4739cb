/**
 * Where a local variable's object comes from. update-unfetched and missing-owner-ref only speak
 * about objects we can see being built: a composite literal here, or a same-package builder
 * function whose every return is a literal. Anything else (a Get, a parameter, a loop variable,
 * a call into another package) is "unknown" and never reported.
 */
import type { FuncDecl, GoPackage } from './package';
import type { PathFunc } from './reconcilers';
import {
  argVar,
  callArgs,
  callee,
  contains,
  descendants,
  field,
  inFuncLiteral,
  named,
  typeName,
  unparen,
  type Node,
} from './syntax';

export interface Origin {
  /** the literal the object is built from (in this function or in the builder) */
  literal: Node;
  typeName: string | null;
  /** the builder function, when the literal is built there */
  builder: FuncDecl | null;
  /** the statement that defines the variable */
  def: Node;
}

/** Definitions of `name` in `body`: [statement, value expression]. */
function definitions(body: Node, name: string): [Node, Node | null][] {
  const out: [Node, Node | null][] = [];
  for (const d of descendants(body, [
    'short_var_declaration',
    'assignment_statement',
    'var_spec',
  ])) {
    const isSpec = d.type === 'var_spec';
    const left = isSpec ? named(d).filter((n) => n.type === 'identifier') : named(field(d, 'left'));
    const i = left.findIndex((n) => n.type === 'identifier' && n.text === name);
    if (i < 0) continue;
    const values = named(field(d, isSpec ? 'value' : 'right'));
    out.push([
      d,
      values.length === left.length ? values[i] : values.length === 1 ? values[0] : null,
    ]);
  }
  return out;
}

function literalOf(expr: Node | null): Node | null {
  let e = unparen(expr);
  if (e?.type === 'unary_expression' && e.childForFieldName('operator')?.type === '&')
    e = unparen(field(e, 'operand'));
  return e?.type === 'composite_literal' ? e : null;
}

/** The literal every return of `builder` hands back at position `index`, or null. */
function builtLiteral(builder: FuncDecl, index: number): Node | null {
  const body = field(builder.node, 'body');
  if (!body) return null;
  // A builder that talks to the API may return a fetched object: not ours to judge.
  if (/\.(Get|List)\(/.test(body.text)) return null;
  const returns = descendants(body, 'return_statement').filter((r) => !inFuncLiteral(r, body));
  let found: Node | null = null;
  for (const r of returns) {
    const exprs = named(named(r)[0]);
    const e = exprs[index] ?? null;
    let lit = literalOf(e);
    if (!lit && e?.type === 'identifier') {
      const defs = definitions(body, e.text);
      lit = defs.length === 1 ? literalOf(defs[0][1]) : null;
    }
    if (!lit) return null;
    found ??= lit;
  }
  return found;
}

export function localOrigin(pkg: GoPackage, fn: PathFunc, name: string, use: Node): Origin | null {
  // The definition that reaches `use`: the last one before it in a statement list enclosing it.
  // (Same-named variables in sibling blocks are different variables.)
  const defs = definitions(fn.body, name).filter(
    ([d]) => d.startIndex < use.startIndex && !!d.parent && contains(scopeOf(d), use),
  );
  if (defs.length === 0) return null;
  const [def, value] = defs[defs.length - 1];
  if (def.type === 'assignment_statement') return null; // reassigned: too clever for us
  const lit = literalOf(value);
  if (lit) return { literal: lit, typeName: typeName(field(lit, 'type')), builder: null, def };
  const call = unparen(value);
  if (call?.type !== 'call_expression') return null;
  const c = callee(call);
  if (!c) return null;
  let builder: FuncDecl | undefined;
  if (!c.operand) builder = pkg.func(c.name);
  else if (
    c.operand.type === 'identifier' &&
    c.operand.text === fn.receiver &&
    fn.decl.receiverType
  ) {
    builder = pkg.method(fn.decl.receiverType, c.name);
  }
  if (!builder) return null;
  const left = named(field(def, def.type === 'var_spec' ? 'name' : 'left'));
  const index = Math.max(
    0,
    left.findIndex((n) => n.text === name),
  );
  const built = builtLiteral(builder, index);
  if (!built) return null;
  return { literal: built, typeName: typeName(field(built, 'type')), builder, def };
}

/** The block a definition's variable lives in (var_spec sits inside a var_declaration). */
export function scopeOf(def: Node): Node {
  let n: Node = def;
  while (n.parent && n.parent.type !== 'statement_list' && n.parent.type !== 'block') n = n.parent;
  return n.parent ?? n;
}

/** Calls that take an object but neither read it from the API nor set its owner or version. */
const HARMLESS = new Set([
  'SetControllerReference',
  'SetOwnerReference',
  'AddFinalizer',
  'RemoveFinalizer',
  'Info',
  'Error',
  'V',
  'Printf',
  'Println',
  'Sprintf',
  'Errorf',
  'Event',
  'Eventf',
]);

/**
 * Is `name` handed to a call we cannot see into (a mutate callback, another package's helper)
 * between its definition and `use`? Such a call may fetch it or set its owner: not ours to judge.
 */
export function passedToUnknownCall(fn: PathFunc, name: string, def: Node, use: Node): boolean {
  const scope = scopeOf(def);
  for (const call of fn.calls) {
    if (call.id === use.id || contains(call, use) || !contains(scope, call)) continue;
    if (call.startIndex <= def.startIndex || call.startIndex >= use.startIndex) continue;
    if (!callArgs(call).some((a) => argVar(a) === name)) continue;
    if (HARMLESS.has(callee(call)?.name ?? '')) continue;
    return true;
  }
  return false;
}
