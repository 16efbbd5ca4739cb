/**
 * The declared type of a variable, read off the syntax: a parameter (`p *T`), `var x T`,
 * `x := &T{}`, `x := T{}`, `x := new(T)`, or `x, err := f(...)` where the caller can say which
 * declaration `f` is (its result type at that position), or `for _, x := range xs` over a slice
 * (its element type), or a function literal's parameter. Enough to follow `dfi.patchStatus(...)` when `dfi` came from
 * `r.getInstance(...)`, and `step.run(...)` over a list of steps, without a type checker.
 */
import { paramsOf } from './package';
import { callee, descendants, field, named, unparen, type Node } from './syntax';

/** The declaration (function or method node) a call reaches, when the caller knows it. */
export type CallTarget = (call: Node) => Node | null;

/** Result type nodes of a function declaration: `(a *T, err error)` → [*T, error]. */
export function resultTypes(fn: Node): Node[] {
  const r = field(fn, 'result');
  if (!r) return [];
  if (r.type !== 'parameter_list') return [r];
  const out: Node[] = [];
  for (const p of named(r)) {
    const t = field(p, 'type');
    if (!t) continue;
    const n = named(p).filter((c) => c.type === 'identifier').length;
    for (let i = 0; i < Math.max(1, n); i++) out.push(t);
  }
  return out;
}

export function varType(fnNode: Node, name: string, target?: CallTarget): Node | null {
  for (const p of paramsOf(fnNode)) if (p.name === name) return p.type;
  const body = field(fnNode, 'body');
  for (const spec of descendants(body, 'var_spec')) {
    if (named(spec).some((n) => n.type === 'identifier' && n.text === name)) {
      const t = field(spec, 'type');
      if (t) return t;
    }
  }
  for (const d of descendants(body, 'short_var_declaration')) {
    const left = named(field(d, 'left'));
    const i = left.findIndex((n) => n.text === name);
    if (i < 0) continue;
    const right = named(field(d, 'right'));
    let value = unparen(right[right.length === left.length ? i : 0] ?? null);
    if (value?.type === 'unary_expression') value = unparen(field(value, 'operand'));
    if (value?.type === 'composite_literal') return field(value, 'type');
    if (value?.type !== 'call_expression') continue;
    if (callee(value)?.name === 'new') return named(field(value, 'arguments'))[0] ?? null;
    const decl = target?.(value);
    if (decl) return resultTypes(decl)[right.length === left.length ? 0 : i] ?? null;
  }
  for (const rc of descendants(body, 'range_clause')) {
    if (named(field(rc, 'left'))[1]?.text !== name) continue;
    const xs = unparen(field(rc, 'right'));
    const t =
      xs?.type === 'composite_literal'
        ? field(xs, 'type')
        : xs?.type === 'identifier' && xs.text !== name
          ? varType(fnNode, xs.text, target)
          : null;
    if (t?.type === 'slice_type' || t?.type === 'array_type') return field(t, 'element');
  }
  // A function literal's parameter: `func(x *T) { x.SetDefaults() }` handed to a helper.
  for (const lit of descendants(body, 'func_literal'))
    for (const p of paramsOf(lit)) if (p.name === name) return p.type;
  return null;
}
