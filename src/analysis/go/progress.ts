/**
 * Progress markers: a status write made before the reconcile's work to tell users it is under way
 * (`State = Reconciling`, a Progressing condition), which a later write on the same pass replaces
 * with the outcome (`Running`, Ready). The first write is seen by users while the work runs, so
 * collecting the two into one would lose it: repeated-status-update does not count such a pair.
 *
 * A pair is a progress marker when both writes record the same status field (the same helper
 * called with other arguments, `updateStatus(ctx, obj, Collecting)` then `updateStatus(ctx, obj,
 * Enabled)`, or the same field set before each: `Status.Phase`, the conditions), or the first
 * records when the work started (`Status.StartTime`), and real work lies between them: a call that
 * is not logging, an event, a condition setter or a value helper.
 */
import {
  ancestor,
  callArgs,
  callee,
  contains,
  descendants,
  field,
  named,
  type Node,
} from './syntax';
import { paramsOf } from './package';

/** A status field that records when the work started: StartTime, StartedAt, StartTimestamp. */
const START_FIELD = /^Start(ed)?(Time|At|Timestamp)?$/;

/** Calls that are bookkeeping, not work: logging, events, clocks, formatting, builtins. */
const BOOKKEEPING_NAME =
  /^(FromContext|FromContextOrDiscard|LoggerFrom|Info|Infof|Error|Errorf|Warn|Warnf|Warning|Debug|Debugf|V|WithValues|WithName|Event|Eventf|AnnotatedEventf|Now|Since|DeepCopy\w*|String|Sprintf|Errorf|Wrap|Wrapf|New|Is|As|Unwrap|GetGeneration|GetName|GetNamespace|Get\w*Condition|Find\w*Condition|Is\w*Condition\w*|len|cap|append|make|new|copy|delete|panic|ptr|To|Deref|MergeFrom\w*)$/;
const BOOKKEEPING_PKG = new Set(['fmt', 'errors', 'strings', 'strconv', 'time', 'ptr', 'pointer']);

/** A call that sets a condition (`meta.SetStatusCondition`, `conditions.MarkTrue`, `s.SetCondition`). */
function setsCondition(call: Node): boolean {
  const c = callee(call);
  if (!c) return false;
  if (/Condition/.test(c.name) && /^(Set|Mark|Update|Add|Remove|Delete)/.test(c.name)) return true;
  if (c.operand?.text === 'conditions' && /^Mark/.test(c.name)) return true;
  return /^(ProgressiveStatus|MarkReconciling|MarkStalled)$/.test(c.name);
}

function bookkeeping(call: Node): boolean {
  const c = callee(call);
  if (!c) return true;
  if (BOOKKEEPING_NAME.test(c.name) || setsCondition(call)) return true;
  const q = c.operand?.type === 'identifier' ? c.operand.text : null;
  return !!q && BOOKKEEPING_PKG.has(q);
}

/**
 * A status value copied out of an object: `x.Status`, `x.Status.DeepCopy()`, `&x.Status`, or a
 * getter's (`x.getStatus()`, `GetStatus()`).
 */
const STATUS_VALUE = /^(&?[\w.]+\.Status(\.DeepCopy\(\))?|([\w.]+\.)?[gG]et\w*Status\([^()]*\))$/;

/**
 * Variables of `body` that hold a copy of (or a pointer to) an object's status (`s := x.Status`):
 * a helper handed `s` after `s.Phase = ...` writes that field, as `x.Status.Phase = ...` would.
 */
function statusCopies(body: Node): Set<string> {
  const out = new Set<string>();
  for (const d of descendants(body, ['short_var_declaration', 'assignment_statement'])) {
    const left = named(field(d, 'left'));
    const right = named(field(d, 'right'));
    if (left.length !== right.length) continue;
    left.forEach((l, i) => {
      if (l.type === 'identifier' && STATUS_VALUE.test(right[i]!.text)) out.add(l.text);
    });
  }
  return out;
}

/**
 * The status fields set in `nodes`: `x.Status.Phase = ...` (or `s.Phase = ...` on a status copy
 * `s`) gives Phase, `x.Status = s` every field ('*'), a condition setter the conditions; inside a
 * function literal handed to the write (a patcher `func(s *FooStatus) { s.Phase = ... }`) its
 * parameter's fields.
 */
function fieldsSet(nodes: Node[], out: Set<string>, copies: Set<string> = new Set()): void {
  const kinds = ['assignment_statement', 'inc_statement', 'dec_statement'];
  for (const n of nodes) {
    for (const a of [...(kinds.includes(n.type) ? [n] : []), ...descendants(n, kinds)]) {
      const targets =
        a.type === 'assignment_statement' ? named(field(a, 'left')) : named(a).slice(0, 1);
      for (const t of targets) {
        const m = /\.Status\.(\w+)/.exec(t.text);
        const copy = /^(\w+)\.(\w+)/.exec(t.text);
        if (m) out.add(m[1]);
        else if (/\.Status$/.test(t.text)) out.add('*');
        else if (copy && copies.has(copy[1])) out.add(copy[2]);
      }
    }
    const calls = [
      ...(n.type === 'call_expression' ? [n] : []),
      ...descendants(n, 'call_expression'),
    ];
    for (const c of calls) if (setsCondition(c)) out.add('Conditions');
  }
}

/** Fields a patcher literal handed to the write sets on its parameter. */
function fieldsInPatcher(call: Node, out: Set<string>): void {
  for (const lit of callArgs(call).flatMap((a) => descendants(a, 'func_literal'))) {
    const params = named(field(lit, 'parameters'))
      .flatMap((p) => named(p).filter((x) => x.type === 'identifier'))
      .map((x) => x.text);
    for (const a of descendants(field(lit, 'body'), 'assignment_statement')) {
      for (const t of named(field(a, 'left'))) {
        const m = /^(\w+)\.(\w+)/.exec(t.text);
        if (m && params.includes(m[1])) out.add(m[2]);
      }
    }
    fieldsSet([lit], out);
  }
}

/** Statements of `body` (at any depth) that lie wholly in [from, to). */
function stretch(body: Node, from: number, to: number): Node[] {
  const out: Node[] = [];
  const walk = (n: Node): void => {
    for (const c of named(n)) {
      if (c.endIndex <= from || c.startIndex >= to) continue;
      if (c.startIndex >= from && c.endIndex <= to) out.push(c);
      else walk(c);
    }
  };
  walk(body);
  return out;
}

/** The innermost `if` whose consequence holds `n` and not `other`, with its condition. */
function guard(n: Node, other: Node): { op: string; left: string; right: string } | null {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'func_literal' || p.type === 'function_declaration') return null;
    if (p.type !== 'if_statement' || contains(p, other)) continue;
    const cons = field(p, 'consequence');
    const cond = field(p, 'condition');
    const alt = field(p, 'alternative');
    // The write in the if's own statement (`if err := write(); err != nil`): look further out.
    if (!(cons && contains(cons, n)) && !(alt && contains(alt, n))) continue;
    if (!cons || !contains(cons, n) || cond?.type !== 'binary_expression') return null;
    const l = field(cond, 'left');
    const r = field(cond, 'right');
    if (!l || !r) return null;
    const op = cond.text.slice(l.endIndex - cond.startIndex, r.startIndex - cond.startIndex).trim();
    const left = l.text;
    const right = r.text;
    return op === '==' || op === '!=' ? { op, left, right } : null;
  }
  return null;
}

/**
 * `if x.Status.State != Upgrading { write }` … `if x.Status.State == Upgrading { write }`: the
 * two guards test the same value against the same constant, one for equality and one for
 * inequality, so no pass makes both writes.
 */
function exclusive(earlier: Node, later: Node): boolean {
  const a = guard(earlier, later);
  const b = guard(later, earlier);
  if (!a || !b || a.op === b.op) return false;
  return (a.left === b.left && a.right === b.right) || (a.left === b.right && a.right === b.left);
}

/**
 * A predicate over pairs of status writes in one function body: is the earlier one not to be
 * counted against the later one? Either the later records the outcome of a progress marker the
 * earlier wrote, or their guards exclude each other. `writes` are every status write of the body
 * (their order in the source bounds what was set before each).
 */
export function progressMarkers(
  body: Node,
  calls: Node[],
  writes: Node[],
  outcome: (call: Node) => boolean = () => false,
): (earlier: Node, later: Node) => boolean {
  const sorted = [...writes].sort((a, b) => a.startIndex - b.startIndex);
  // Found when first needed: most functions never compare two writes' fields.
  let copies: Set<string> | null = null;
  const before = (w: Node): Set<string> => {
    const prev = sorted.filter((x) => x.endIndex <= w.startIndex).pop();
    const out = new Set<string>();
    copies ??= statusCopies(body);
    fieldsSet(stretch(body, prev ? prev.endIndex : body.startIndex, w.startIndex), out, copies);
    fieldsInPatcher(w, out);
    return out;
  };
  return (earlier, later) => {
    if (later.startIndex <= earlier.endIndex) return false;
    if (exclusive(earlier, later)) return true;
    const work = calls.some(
      (c) =>
        c.startIndex > earlier.endIndex &&
        c.endIndex < later.startIndex &&
        !writes.some((w) => contains(w, c)) &&
        !bookkeeping(c),
    );
    if (!work) return false;
    const a = callArgs(earlier).map((x) => x.text);
    const b = callArgs(later).map((x) => x.text);
    const name = (c: Node): string | undefined => field(c, 'function')?.text;
    // A helper of the module (not the client's own Status().Update/Patch) given another state.
    const helper = !/Status\(\)/.test(name(earlier) ?? '');
    if (helper && name(earlier) === name(later) && a.length === b.length)
      if (a.some((x, i) => x !== b[i])) return true;
    const first = before(earlier);
    // The earlier write records when the work started (`Status.StartTime = metav1.Now()`): users
    // see it while the work runs, whatever the later write records.
    if ([...first].some((f) => START_FIELD.test(f))) return true;
    // The later write is a step that runs the operation itself and then records its outcome
    // (pulumi's `rs.Preview(ctx, obj, client)` after a Progressing condition): a marker.
    if (first.size > 0 && outcome(later)) return true;
    const second = before(later);
    if (first.has('*') || second.has('*')) return first.size > 0 && second.size > 0;
    return [...first].some((f) => second.has(f));
  };
}

/**
 * Does the function run an operation before its first status write: a call handed its context
 * (`client.Preview(ctx, req)`, `r.deploy(ctx, obj)`) that is not logging, an event, a condition
 * setter or a status write? Such a step records the outcome of work it does itself.
 */
export function worksBeforeWriting(decl: Node): boolean {
  const body = field(decl, 'body');
  const ctx = paramsOf(decl).find((p) => /(^|\.)Context$/.test(p.type.text))?.name;
  if (!body || !ctx) return false;
  const calls = descendants(body, 'call_expression').sort((a, b) => a.startIndex - b.startIndex);
  for (const c of calls) {
    if (ancestor(c, ['func_literal'], body)) continue;
    const name = field(c, 'function')?.text ?? '';
    if (/Status\(\)|status/i.test(name)) return false;
    if (bookkeeping(c)) continue;
    if (callArgs(c)[0]?.text === ctx) return true;
  }
  return false;
}
