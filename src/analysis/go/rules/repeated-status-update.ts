/**
 * repeated-status-update: two status writes of the same object on one path through a function.
 * Each write bumps resourceVersion and fires a watch event; the second one usually conflicts or
 * triggers an extra reconcile. Collect the changes and write status once, at the end.
 *
 * The walk is path-sensitive in the cheap way: a branch that ends in `return` does not carry its
 * writes past the `if`, so the seed's "write status and return" early exit is not counted against
 * the final write. A Get into the object between two writes (a re-fetch) starts afresh. Loops are
 * walked once; deferred and goroutine writes are ignored.
 */
import type { GoRule, GoRuleContext } from '../rule';
import type { ClientCall, PathFunc } from '../reconcilers';
import { argVar, contains, field, named, statements, type Node } from '../syntax';

type Counts = Map<string, number>;

const BRANCHING = new Set([
  'for_statement',
  'expression_switch_statement',
  'type_switch_statement',
  'select_statement',
]);

function merge(a: Counts, b: Counts): Counts {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, Math.max(out.get(k) ?? 0, v));
  return out;
}

function terminates(stmts: Node[]): boolean {
  const last = stmts[stmts.length - 1];
  if (!last) return false;
  if (last.type === 'return_statement' || last.type === 'goto_statement') return true;
  if (last.type === 'expression_statement' && /^panic\(/.test(last.text)) return true;
  if (last.type === 'if_statement') {
    const alt = field(last, 'alternative');
    return !!alt && terminates(statements(field(last, 'consequence'))) && terminatesNode(alt);
  }
  return false;
}

function terminatesNode(n: Node): boolean {
  return n.type === 'block' ? terminates(statements(n)) : terminates([n]);
}

class Walker {
  constructor(
    private readonly ctx: GoRuleContext,
    private readonly fn: PathFunc,
    private readonly writes: ClientCall[],
  ) {}

  /** Writes that belong to `node` itself, not to nested blocks (they are walked separately). */
  private ownWrites(node: Node, skip: Node[]): ClientCall[] {
    return this.writes.filter(
      (w) => contains(node, w.call) && !skip.some((s) => contains(s, w.call)),
    );
  }

  private count(writes: ClientCall[], state: Counts): void {
    for (const w of writes.sort((a, b) => a.call.startIndex - b.call.startIndex)) {
      if (!w.status) {
        // A Get into the object re-reads it: the next write starts from fresh state.
        state.set(argVar(w.args[2]) ?? '', 0);
        continue;
      }
      const key = argVar(w.args[1]) ?? w.args[1]?.text ?? '';
      const before = state.get(key) ?? 0;
      if (before >= 1) {
        this.ctx.report({
          file: this.fn.file,
          node: w.call,
          message: `This is another status write of ${key} on the same path: each write bumps resourceVersion and fires a watch event, so later ones conflict or trigger extra reconciles. Collect the changes and write status once.`,
        });
      }
      state.set(key, before + 1);
    }
  }

  block(stmts: Node[], state: Counts): Counts {
    let s = state;
    for (const st of stmts) s = this.statement(st, s);
    return s;
  }

  statement(st: Node, state: Counts): Counts {
    if (st.type === 'defer_statement' || st.type === 'go_statement') return state;
    // Nothing to count inside: the state passes through unchanged (callers copy before counting).
    if (!this.writes.some((w) => contains(st, w.call))) return state;
    if (st.type === 'if_statement') {
      const cons = field(st, 'consequence');
      const alt = field(st, 'alternative');
      const nested = [cons, alt].filter((n): n is Node => !!n);
      const s = new Map(state);
      this.count(this.ownWrites(st, nested), s);
      const consStmts = statements(cons);
      const afterCons = this.block(consStmts, new Map(s));
      const afterAlt = alt
        ? alt.type === 'block'
          ? this.block(statements(alt), new Map(s))
          : this.statement(alt, new Map(s))
        : s;
      const consEnds = terminates(consStmts);
      const altEnds = !!alt && terminatesNode(alt);
      if (consEnds && altEnds) return s;
      if (consEnds) return afterAlt;
      if (altEnds) return afterCons;
      return merge(afterCons, afterAlt);
    }
    if (st.type === 'block') return this.block(statements(st), state);
    if (BRANCHING.has(st.type)) {
      // Each body (or case) starts from the entry state; the result is the worst of them.
      const bodies = named(st).filter((n) =>
        ['block', 'expression_case', 'type_case', 'default_case', 'communication_case'].includes(
          n.type,
        ),
      );
      const s = new Map(state);
      this.count(this.ownWrites(st, bodies), s);
      let out = s;
      for (const b of bodies) {
        const stmts =
          b.type === 'block'
            ? statements(b)
            : statements(b).filter((x) => x.parent?.type === 'statement_list');
        out = merge(out, this.block(stmts, new Map(s)));
      }
      return out;
    }
    const s = new Map(state);
    const lits = st.descendantsOfType('func_literal').filter((n): n is Node => n !== null);
    this.count(this.ownWrites(st, lits), s);
    return s;
  }
}

export const repeatedStatusUpdate: GoRule = {
  id: 'repeated-status-update',
  check(ctx) {
    for (const rec of ctx.reconcilers) {
      for (const fn of rec.funcs) {
        const writes = fn.clientCalls.filter((c) => c.status && c.method !== 'Create');
        if (writes.length < 2) continue;
        writes.push(...fn.clientCalls.filter((c) => !c.status && c.method === 'Get'));
        new Walker(ctx, fn, writes).block(statements(fn.body), new Map());
      }
    }
  },
};
