/**
 * Status writes counted along the paths of one function body, for repeated-status-update and
 * for the function summaries (a helper that writes status twice in one pass).
 *
 * The walk is path-sensitive in the cheap way: a branch that ends in `return` does not carry its
 * writes past the `if`, so the seed's "write status and return" early exit is not counted against
 * the final write, nor does a `case` that returns, a `goto`, a `continue` or a labelled `break`.
 * A Get into the object between two writes (a re-fetch) starts afresh. A loop body that goes
 * round is walked twice (a write in it is repeated on the next pass); deferred and goroutine
 * writes are ignored.
 */
import { caseStatements, endsPath, terminates } from './flow';
import { ancestor, contains, field, named, statements, type Node } from './syntax';

/** Per object: most writes on the path so far, and the writes that made the last count. */
export type Counts = Map<string, Slot>;
interface Slot {
  n: number;
  last: WriteEvent[];
}

const BRANCHING = new Set([
  'for_statement',
  'expression_switch_statement',
  'type_switch_statement',
  'select_statement',
]);

function merge(a: Counts, b: Counts): Counts {
  const out = new Map(a);
  for (const [k, v] of b) {
    const o = out.get(k);
    if (!o) out.set(k, v);
    else
      out.set(k, {
        n: Math.max(o.n, v.n),
        last: [...o.last, ...v.last.filter((w) => !o.last.includes(w))],
      });
  }
  return out;
}

/**
 * How a list of statements ends: it goes `on` past its statement, `ends` the path (return, goto,
 * panic), or `jumps` out of the loop around it (`continue`, a labelled `break`, a plain `break`
 * whose target is a loop rather than a switch): the writes then reach what follows the loop.
 */
function ending(stmts: Node[]): 'on' | 'ends' | 'jumps' {
  if (stmts.some(terminates)) return 'ends';
  if (stmts.some((x) => endsPath(x) || (x.type === 'break_statement' && breaksLoop(x))))
    return 'jumps';
  return 'on';
}

/** Is the nearest statement a plain `break` leaves a loop (not a switch or select)? */
function breaksLoop(brk: Node): boolean {
  for (let n = brk.parent; n; n = n.parent) {
    if (n.type === 'for_statement') return true;
    if (BRANCHING.has(n.type) || n.type === 'func_literal') return false;
  }
  return false;
}

function endingOf(n: Node): 'on' | 'ends' | 'jumps' {
  return ending(n.type === 'block' ? statements(n) : [n]);
}

/**
 * Names a loop declares (its range and index variables, and variables declared in its body):
 * on the next pass they hold another object, so `for _, p := range pods { patch(&p) }` writes
 * each pod once.
 */
function declaredIn(loop: Node): Set<string> {
  const out = new Set<string>();
  for (const d of loop.descendantsOfType(['short_var_declaration', 'range_clause', 'var_spec'])) {
    const left = d.type === 'var_spec' ? d : field(d, 'left');
    for (const id of named(left)) if (id.type === 'identifier') out.add(id.text);
    if (left?.type === 'identifier') out.add(left.text);
  }
  return out;
}

/**
 * The counts without objects named through one of `names` (`pod`, `&list.Items[i]`), nor those a
 * helper finds itself (`?` keys: `updateAuthStatus(ctx, c, ns, name)` reads the object it
 * writes, another one on each pass).
 */
function forget(state: Counts, names: Set<string>): Counts {
  const out = new Map(state);
  for (const key of state.keys())
    if (key.startsWith('?') || key.split(/\W+/).some((part) => names.has(part))) out.delete(key);
  return out;
}

/**
 * A status write on the walk: a write of `key` counting `n` (a helper that writes twice counts
 * 2), or a `refresh` (a Get into `key`: the next write starts from fresh state).
 */
export interface WriteEvent {
  call: Node;
  key: string;
  n: number;
  refresh: boolean;
}

/**
 * Can the walk count this write of `body`? Not in a `defer` or a goroutine (`statement` skips
 * them) nor in a function literal (each statement counts its writes outside literals): a caller
 * with fewer than two countable writes knows the walk has nothing to say and can skip it.
 */
export function countable(call: Node, body: Node): boolean {
  return !ancestor(call, ['defer_statement', 'go_statement', 'func_literal'], body);
}

/**
 * Walks a function body counting status writes per object along each path; `onWrite` hears
 * every write with the count of earlier writes of its object on that path.
 */
export class StatusPasses {
  constructor(
    private readonly writes: WriteEvent[],
    private readonly onWrite: (w: WriteEvent, before: number) => void,
    /**
     * Does the later write record the outcome of a progress marker the earlier one wrote (see
     * progress.ts)? Then the earlier is not counted against it.
     */
    private readonly replaces: (earlier: Node, later: Node) => boolean = () => false,
  ) {}

  /** per enclosing loop, the states that jump out of it (merged into the state after the loop) */
  private readonly exits: Counts[][] = [];

  /** The state after an arm that ended as `how`: null when nothing of it goes on. */
  private carried(how: 'on' | 'ends' | 'jumps', after: Counts): Counts | null {
    if (how === 'on') return after;
    if (how === 'jumps') this.exits[this.exits.length - 1]?.push(after);
    return null;
  }

  /** Writes that belong to `node` itself, not to nested blocks (they are walked separately). */
  private ownWrites(node: Node, skip: Node[]): WriteEvent[] {
    return this.writes.filter(
      (w) => contains(node, w.call) && !skip.some((s) => contains(s, w.call)),
    );
  }

  private count(writes: WriteEvent[], state: Counts): void {
    for (const w of writes.sort((a, b) => a.call.startIndex - b.call.startIndex)) {
      if (w.refresh) {
        state.set(w.key, { n: 0, last: [] });
        continue;
      }
      const slot = state.get(w.key);
      let before = slot?.n ?? 0;
      if (before > 0 && slot!.last.every((e) => this.replaces(e.call, w.call))) before = 0;
      this.onWrite(w, before);
      state.set(w.key, { n: before + w.n, last: [w] });
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
      const cons2 = this.carried(ending(consStmts), afterCons);
      const alt2 = alt ? this.carried(endingOf(alt), afterAlt) : afterAlt;
      if (!cons2 && !alt2) return s;
      return cons2 && alt2 ? merge(cons2, alt2) : (cons2 ?? alt2)!;
    }
    if (st.type === 'block') return this.block(statements(st), state);
    if (st.type === 'labeled_statement') {
      const inner = named(st).find((c) => c.type !== 'label_name');
      return inner ? this.statement(inner, state) : state;
    }
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
      const loop = st.type === 'for_statement';
      if (loop) this.exits.push([]);
      for (const b of bodies) {
        const stmts = b.type === 'block' ? statements(b) : caseStatements(b);
        // A case that returns carries nothing past the switch; one that jumps, only past the loop.
        const how = ending(stmts);
        let after = this.carried(how, this.block(stmts, new Map(s)));
        // A loop body that goes round writes again on the next pass: walk it a second time.
        if (loop && after && !stmts.some((x) => x.type === 'break_statement'))
          after = this.carried(how, this.block(stmts, forget(merge(s, after), declaredIn(st))));
        if (after) out = merge(out, after);
      }
      if (loop) for (const jumped of this.exits.pop()!) out = merge(out, jumped);
      return out;
    }
    const s = new Map(state);
    const lits = st.descendantsOfType('func_literal').filter((n): n is Node => n !== null);
    this.count(this.ownWrites(st, lits), s);
    return s;
  }
}
