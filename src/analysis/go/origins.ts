/**
 * Where a local variable's object comes from. update-unfetched and missing-owner-ref only speak
 * about objects we can see being built: a composite literal here, or a same-package builder
 * function whose every return is a literal. Anything else (a Get, a parameter, a loop variable,
 * a call into another package) is "unknown" and never reported.
 */
import type { FuncDecl, GoPackage } from './package';
import type { PathFunc } from './reconcilers';
import { callee, descendants, field, inFuncLiteral, named, typeName, unparen, type Node } from './syntax';

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
  for (const d of descendants(body, ['short_var_declaration', 'assignment_statement', 'var_spec'])) {
    const isSpec = d.type === 'var_spec';
    const left = isSpec
      ? named(d).filter((n) => n.type === 'identifier')
      : named(field(d, 'left'));
    const i = left.findIndex((n) => n.type === 'identifier' && n.text === name);
    if (i < 0) continue;
    const values = named(field(d, isSpec ? 'value' : 'right'));
    out.push([d, values.length === left.length ? values[i] : values.length === 1 ? values[0] : null]);
  }
  return out;
}

function literalOf(expr: Node | null): Node | null {
  let e = unparen(expr);
  if (e?.type === 'unary_expression' && e.child(0)?.type === '&') e = unparen(field(e, 'operand'));
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
  const defs = definitions(fn.body, name).filter(([d]) => d.startIndex < use.startIndex);
  if (defs.length !== 1) return null;
  const [def, value] = defs[0];
  const lit = literalOf(value);
  if (lit) return { literal: lit, typeName: typeName(field(lit, 'type')), builder: null, def };
  const call = unparen(value);
  if (call?.type !== 'call_expression') return null;
  const c = callee(call);
  if (!c) return null;
  let builder: FuncDecl | undefined;
  if (!c.operand) builder = pkg.functions.get(c.name);
  else if (c.operand.type === 'identifier' && c.operand.text === fn.receiver && fn.decl.receiverType) {
    builder = pkg.method(fn.decl.receiverType, c.name);
  }
  if (!builder) return null;
  const left = named(field(def, def.type === 'var_spec' ? 'name' : 'left'));
  const index = Math.max(0, left.findIndex((n) => n.text === name));
  const built = builtLiteral(builder, index);
  if (!built) return null;
  return { literal: built, typeName: typeName(field(built, 'type')), builder, def };
}
