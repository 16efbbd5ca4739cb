/**
 * How long a call may hold the goroutine that makes it: time.Sleep, the wait.Poll* family, and
 * the retry libraries operators use (client-go's util/retry, github.com/avast/retry-go,
 * github.com/cenkalti/backoff). The longest wait is computed from the call's arguments where they
 * are constants (`5 * time.Second`, a package `const`, a wait.Backoff literal) and from each
 * library's documented defaults, so the finding can name it.
 */
import type { GoFile } from './package';
import { importPathOf } from './package';
import {
  ancestor,
  callArgs,
  descendants,
  field,
  named,
  qualifiedCallee,
  unparen,
  type Node,
} from './syntax';

/** A blocking call and the longest it may wait: null ms means "unbounded or unknown". */
export interface Wait {
  /** `wait.PollUntilContextTimeout`, `retry.Do` ... as written */
  what: string;
  ms: number | null;
  /** why that bound, e.g. "its timeout" or "10 attempts from 100ms, doubling" */
  why: string;
  /**
   * whose call: time and wait.Poll* hold the worker by design; retries (client-go's retry,
   * wait.ExponentialBackoff, retry-go, cenkalti/backoff) wait only when an attempt fails, so
   * they are reported only when they back off long
   */
  lib: 'time' | 'wait' | 'wait-backoff' | 'client-go-retry' | 'retry-go' | 'backoff';
  /**
   * A sleep in a hand-written retry loop: every loop around it leaves early once an attempt
   * succeeds (a `return` or `break` in its body), and is counted or runs until a deadline
   */
  retry?: boolean;
  /**
   * A bound not known here that a caller may know (see boundAtCall): the variable it depends on,
   * the context a poll runs until it ends (`context`: the caller made it with
   * `context.WithTimeout(ctx, d)`) or the duration of a hand-written loop's deadline
   * (`deadline := time.Now().Add(timeout)`), plus `add` ms (the sleep after the deadline).
   */
  open?: { name: string; kind: 'context' | 'deadline'; add: number };
}

const UNTIL_CONTEXT = 'until its condition holds or its context ends';
const CONTEXT_TIMEOUT = "its context's timeout";

/**
 * Retries that give up within this long are a bounded short backoff, what RetryOnConflict is
 * for (a conflict retry of a few seconds at most, often held in a package variable): a
 * deliberate design, not reported. A retry that backs off longer holds the worker for it.
 */
export const RETRY_REPORTED_FROM_MS = 5000;

/**
 * A wait not worth a finding once its loops are known: a sleep in a hand-written retry loop
 * (counted, or until a deadline, leaving early on success) that gives up within
 * RETRY_REPORTED_FROM_MS is the same bounded short retry as retry.OnError's.
 */
export function shortRetry(w: Wait): boolean {
  return w.lib === 'time' && !!w.retry && w.ms !== null && w.ms < RETRY_REPORTED_FROM_MS;
}

const UNITS: Record<string, number> = {
  Nanosecond: 1e-6,
  Microsecond: 1e-3,
  Millisecond: 1,
  Second: 1000,
  Minute: 60_000,
  Hour: 3_600_000,
};

/** The math package's integer limits, as `Steps: math.MaxInt32` writes "no limit". */
const LIMITS: Record<string, number> = {
  MaxInt32: 2 ** 31 - 1,
  MaxInt64: 2 ** 63 - 1,
  MaxInt: 2 ** 63 - 1,
  MaxUint32: 2 ** 32 - 1,
};

/**
 * A backoff of this many steps or more retries until its condition holds, as a poll does: the
 * bound is no bound (`Steps: math.MaxInt32` holds a worker for years).
 */
const ENDLESS_STEPS = 1_000_000;

const WAIT_PKG = 'k8s.io/apimachinery/pkg/util/wait';
const RETRY_PKG = 'k8s.io/client-go/util/retry';
const RETRY_GO = /^github\.com\/avast\/retry-go(\/v\d+)?$/;
const BACKOFF = /^github\.com\/cenkalti\/backoff(\/v\d+)?$/;

/** Where constants are looked up: the function's body, then the package's files. */
export interface Scope {
  body: Node | null;
  files: GoFile[];
}

/**
 * A constant expression's value: durations in milliseconds, plain numbers as they are. Knows
 * literals, `time.<Unit>`, `* / + -`, conversions (`time.Duration(n)`), and identifiers bound
 * once to a constant in the function or a package-level `const`/`var`. Null when unknown.
 */
export function evalConst(expr: Node | null, scope: Scope, depth = 0): number | null {
  const e = unparen(expr);
  if (!e || depth > 8) return null;
  switch (e.type) {
    case 'literal_element':
      return evalConst(named(e)[0] ?? null, scope, depth + 1);
    case 'int_literal':
    case 'float_literal': {
      const n = Number(e.text.replace(/_/g, ''));
      return Number.isFinite(n) ? n : null;
    }
    case 'selector_expression': {
      const op = field(e, 'operand')?.text;
      const name = field(e, 'field')?.text ?? '';
      if (op === 'time' && name in UNITS) return UNITS[name];
      if (op === 'math' && name in LIMITS) return LIMITS[name];
      return null;
    }
    case 'binary_expression': {
      const a = evalConst(field(e, 'left'), scope, depth + 1);
      const b = evalConst(field(e, 'right'), scope, depth + 1);
      if (a === null || b === null) return null;
      switch (e.childForFieldName('operator')?.type) {
        case '*':
          return a * b;
        case '/':
          return b === 0 ? null : a / b;
        case '+':
          return a + b;
        case '-':
          return a - b;
        default:
          return null;
      }
    }
    case 'call_expression': {
      // time.Duration(n) and friends: a conversion keeps the value.
      const f = field(e, 'function')?.text ?? '';
      const args = callArgs(e);
      if (args.length === 1 && /^(time\.Duration|u?int(8|16|32|64)?|float64)$/.test(f))
        return evalConst(args[0], scope, depth + 1);
      return null;
    }
    case 'identifier':
      return evalConst(binding(e.text, scope), scope, depth + 1);
    default:
      return null;
  }
}

/** The value an identifier is bound to, when bound exactly once (locally or in the package). */
function binding(name: string, scope: Scope): Node | null {
  const found: Node[] = [];
  for (const d of descendants(scope.body, ['short_var_declaration', 'assignment_statement'])) {
    const i = named(field(d, 'left')).findIndex((l) => l.text === name);
    if (i >= 0) found.push(named(field(d, 'right'))[i] ?? d);
  }
  for (const root of [scope.body, ...scope.files.map((f) => f.root)]) {
    for (const spec of descendants(root, ['const_spec', 'var_spec'])) {
      const names = named(spec).filter((n) => n.type === 'identifier');
      const i = names.findIndex((n) => n.text === name);
      const values = named(field(spec, 'value'));
      if (i >= 0 && values[i]) found.push(values[i]);
    }
    if (found.length) break;
  }
  return found.length === 1 ? found[0] : null;
}

/** Go's time.Duration.String(): 1m0s, 52.1s, 300ms. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms * 1000) / 1000}ms`;
  let s = Math.round(ms) / 1000;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  const sec = `${Math.round(s * 1000) / 1000}s`;
  if (h) return `${h}h${m}m${sec}`;
  if (m) return `${m}m${sec}`;
  return sec;
}

/** The blocking call `call` makes in `file`, with its longest wait; null when it is not one. */
export function blockingWait(file: GoFile, call: Node, scope: Scope): Wait | null {
  const q = qualifiedCallee(call);
  if (!q) return null;
  const [qual, name] = q;
  const what = `${qual}.${name}`;
  const path = qual === 'time' ? 'time' : importPathOf(file, qual);
  const args = callArgs(call);
  const arg = (i: number): number | null => evalConst(args[i] ?? null, scope);
  let w: (Omit<Wait, 'lib'> & { endless?: boolean }) | null = null;
  let lib: Wait['lib'] = 'time';
  if (path === 'time') {
    if (name === 'Sleep') w = known(what, arg(0), 'its argument');
    else if (
      name === 'After' &&
      call.parent?.type === 'unary_expression' &&
      call.parent.text.startsWith('<-')
    )
      w = known('<-time.After', arg(0), 'its argument');
  } else if (path === WAIT_PKG) {
    w = pollWait(what, name, args, scope, file);
    // A backoff without end is a poll until its condition holds: reported like one.
    lib = /^ExponentialBackoff/.test(name) && !w?.endless ? 'wait-backoff' : 'wait';
  } else if (path === RETRY_PKG && (name === 'RetryOnConflict' || name === 'OnError')) {
    lib = 'client-go-retry';
    w = backoffWait(what, args[0] ?? null, scope);
  } else if (path && RETRY_GO.test(path) && (name === 'Do' || name === 'DoWithData')) {
    lib = 'retry-go';
    w = retryGoWait(what, args.slice(1), scope);
  } else if (path && BACKOFF.test(path) && /^Retry(Notify)?(WithData)?$/.test(name)) {
    lib = 'backoff';
    w = cenkaltiWait(what, args, scope);
  }
  if (!w) return null;
  const { endless: _, ...wait } = w;
  return { ...wait, lib };
}

function known(what: string, ms: number | null, why: string): Omit<Wait, 'lib'> {
  return { what, ms, why: ms === null ? 'a wait not known here' : why };
}

/** wait.Poll* and wait.ExponentialBackoff*: the timeout argument, or unbounded. */
function pollWait(
  what: string,
  name: string,
  args: Node[],
  scope: Scope,
  file: GoFile,
): (Omit<Wait, 'lib'> & { endless?: boolean }) | null {
  const timeoutAt: Record<string, number> = {
    Poll: 1,
    PollImmediate: 1,
    PollWithContext: 2,
    PollImmediateWithContext: 2,
    PollUntilContextTimeout: 2,
  };
  if (name in timeoutAt)
    return known(what, evalConst(args[timeoutAt[name]] ?? null, scope), 'its timeout');
  if (/^Poll(Immediate)?(Infinite|Until)/.test(name) || name === 'PollUntilContextCancel') {
    if (name !== 'PollUntilContextCancel') return { what, ms: null, why: UNTIL_CONTEXT };
    // `pollCtx, cancel := context.WithTimeout(ctx, time.Minute)` above it: that minute.
    const ms = contextTimeout(args[0], scope, file);
    if (ms !== null) return { what, ms, why: CONTEXT_TIMEOUT };
    const ctx = unparen(args[0] ?? null);
    return {
      what,
      ms: null,
      why: UNTIL_CONTEXT,
      ...(ctx?.type === 'identifier' && { open: { name: ctx.text, kind: 'context', add: 0 } }),
    };
  }
  if (name === 'ExponentialBackoff') return backoffWait(what, args[0] ?? null, scope);
  if (name === 'ExponentialBackoffWithContext') return backoffWait(what, args[1] ?? null, scope);
  return null;
}

/**
 * The timeout of the context `arg` names, when it was made once in scope by
 * `context.WithTimeout(parent, d)` with a constant d; else null.
 */
function contextTimeout(arg: Node | undefined, scope: Scope, file: GoFile): number | null {
  const a = unparen(arg ?? null);
  const made = a?.type === 'identifier' ? unparen(binding(a.text, scope)) : null;
  const f = made?.type === 'call_expression' ? field(made, 'function') : null;
  if (f?.type !== 'selector_expression' || field(f, 'field')?.text !== 'WithTimeout') return null;
  if (importPathOf(file, field(f, 'operand')?.text ?? '') !== 'context') return null;
  return evalConst(callArgs(made!)[1] ?? null, scope);
}

/**
 * A wait a function of the module makes until the context it was handed ends, or until a deadline
 * the duration it was handed away, as seen where it is called with `args`: bounded by the timeout
 * of a context the caller made or the constant duration it passes, or still open on the caller's
 * own parameter (`params`, by index), or unknown.
 */
export function boundAtCall(
  wait: Wait,
  param: number | undefined,
  args: Node[],
  scope: Scope,
  file: GoFile,
  params: string[],
): { wait: Wait; param?: number } {
  const open = wait.open;
  if (param === undefined || !open) return { wait };
  const ms =
    open.kind === 'context'
      ? contextTimeout(args[param], scope, file)
      : evalConst(args[param] ?? null, scope);
  if (ms !== null) {
    const why =
      open.kind === 'context'
        ? CONTEXT_TIMEOUT
        : `a loop until the deadline handed in, ${formatDuration(ms)} away`;
    const { open: _, ...known } = wait;
    return { wait: { ...known, ms: ms + open.add, why } };
  }
  const a = unparen(args[param] ?? null);
  const at = a?.type === 'identifier' ? params.indexOf(a.text) : -1;
  return at >= 0 ? { wait, param: at } : { wait };
}

/** The fields of a `wait.Backoff{...}` literal (or of the variable bound to one). */
function literalFields(expr: Node | null, scope: Scope): Map<string, Node> | null {
  let e = unparen(expr);
  if (e?.type === 'unary_expression') e = unparen(field(e, 'operand'));
  if (e?.type === 'identifier') e = unparen(binding(e.text, scope));
  if (e?.type !== 'composite_literal') return null;
  const out = new Map<string, Node>();
  for (const kv of descendants(field(e, 'body'), 'keyed_element')) {
    const [k, v] = named(kv);
    if (k && v) out.set(k.text, v);
  }
  return out;
}

/**
 * client-go's wait.Backoff as ExponentialBackoff runs it: Steps attempts, sleeping Step() between
 * them (Duration, times Factor each time, at most Cap, where reaching Cap ends the steps), each
 * sleep stretched by up to Jitter. retry.DefaultRetry and DefaultBackoff are its own values.
 */
function backoffWait(
  what: string,
  expr: Node | null,
  scope: Scope,
): Omit<Wait, 'lib'> & { endless?: boolean } {
  const text = unparen(expr)?.text ?? '';
  let b: { steps: number; d: number; factor: number; jitter: number; cap: number } | null = null;
  if (/(^|\.)DefaultRetry$/.test(text)) b = { steps: 5, d: 10, factor: 1, jitter: 0.1, cap: 0 };
  else if (/(^|\.)DefaultBackoff$/.test(text))
    b = { steps: 4, d: 10, factor: 5, jitter: 0.1, cap: 0 };
  else {
    const f = literalFields(expr, scope);
    const v = (k: string, dflt: number): number | null =>
      f?.has(k) ? evalConst(f.get(k)!, scope) : dflt;
    const steps = v('Steps', 0);
    const d = v('Duration', 0);
    const factor = v('Factor', 0);
    const jitter = v('Jitter', 0);
    const cap = v('Cap', 0);
    if (f && steps !== null && d !== null && factor !== null && jitter !== null && cap !== null)
      b = { steps, d, factor, jitter, cap };
  }
  if (!b) return { what, ms: null, why: 'a backoff not known here' };
  if (b.steps >= ENDLESS_STEPS) {
    const steps = unparen(literalFields(expr, scope)?.get('Steps') ?? null)?.text ?? b.steps;
    return { what, ms: null, why: `Steps: ${steps}, until its condition holds`, endless: true };
  }
  let total = 0;
  let { steps, d } = b;
  while (steps > 1) {
    steps--;
    const sleep = d;
    if (b.factor !== 0) {
      d *= b.factor;
      if (b.cap > 0 && d > b.cap) {
        d = b.cap;
        steps = 0;
      }
    }
    total += sleep * (1 + b.jitter);
  }
  return { what, ms: total, why: `${b.steps} steps from ${formatDuration(b.d)}` };
}

/**
 * retry-go: Attempts (default 10; 0 retries for ever), sleeping between them Delay (default
 * 100ms) doubled each time (BackOffDelay) or fixed (FixedDelay), plus up to MaxJitter (100ms),
 * each sleep at most MaxDelay when set.
 */
function retryGoWait(what: string, opts: Node[], scope: Scope): Omit<Wait, 'lib'> {
  let attempts: number | null = 10;
  let delay: number | null = 100;
  let jitter: number | null = 100;
  let maxDelay: number | null = 0;
  let fixed = false;
  for (const o of opts) {
    const q = o.type === 'call_expression' ? qualifiedCallee(o) : null;
    if (!q) return { what, ms: null, why: 'options not known here' };
    const v = evalConst(callArgs(o)[0] ?? null, scope);
    if (q[1] === 'Attempts') attempts = v;
    else if (q[1] === 'Delay') delay = v;
    else if (q[1] === 'MaxJitter') jitter = v;
    else if (q[1] === 'MaxDelay') maxDelay = v;
    else if (q[1] === 'DelayType') {
      const t = callArgs(o)[0]?.text ?? '';
      if (/\.FixedDelay$/.test(t)) {
        fixed = true;
        jitter = 0;
      } else if (!/\.BackOffDelay$/.test(t))
        return { what, ms: null, why: 'a delay not known here' };
      else jitter = 0;
    }
  }
  if (attempts === 0) return { what, ms: null, why: 'Attempts(0) retries until it succeeds' };
  if (attempts === null || delay === null || jitter === null || maxDelay === null)
    return { what, ms: null, why: 'options not known here' };
  let total = 0;
  for (let n = 0; n < attempts - 1; n++) {
    let d = (fixed ? delay : delay * 2 ** n) + jitter;
    if (maxDelay > 0) d = Math.min(d, maxDelay);
    total += d;
  }
  return {
    what,
    ms: total,
    why: `${attempts} attempts from ${formatDuration(delay)}${fixed ? '' : ', doubling'}`,
  };
}

/**
 * cenkalti/backoff: Retry(op, b) runs until b says stop. NewExponentialBackOff stops after its
 * MaxElapsedTime (15m by default), a constant backoff never; WithMaxRetries(b, n) bounds either.
 */
function cenkaltiWait(what: string, args: Node[], scope: Scope): Omit<Wait, 'lib'> {
  const policy = args.find((a) => /backoff\.(New|With)\w+/.test(a.text)) ?? args[1] ?? null;
  const text = unparen(policy)?.text ?? '';
  const retries = /WithMaxRetries\(|WithMaxTries\(/.exec(text);
  if (retries) {
    const call = descendants(policy, 'call_expression').find((c) =>
      /WithMax(Retries|Tries)$/.test(field(c, 'function')?.text ?? ''),
    );
    const n = call ? evalConst(callArgs(call)[callArgs(call).length - 1] ?? null, scope) : null;
    const constant = /NewConstantBackOff\(/.exec(text);
    const each = constant
      ? evalConst(
          callArgs(
            descendants(policy, 'call_expression').find((c) =>
              /NewConstantBackOff$/.test(field(c, 'function')?.text ?? ''),
            )!,
          )[0] ?? null,
          scope,
        )
      : null;
    if (n !== null && each !== null)
      return { what, ms: n * each, why: `${n} retries of ${formatDuration(each)}` };
    if (n !== null && !constant) {
      // Exponential defaults: 500ms, ×1.5, ±50%, each at most 60s.
      let total = 0;
      for (let i = 0, d = 500; i < n; i++, d = Math.min(d * 1.5, 60_000)) total += d * 1.5;
      return { what, ms: total, why: `${n} retries from 500ms` };
    }
    return { what, ms: null, why: 'a backoff not known here' };
  }
  if (/NewConstantBackOff\(/.test(text))
    return { what, ms: null, why: 'a constant backoff retries until it succeeds' };
  if (/NewExponentialBackOff\(\)/.test(text))
    return { what, ms: 15 * 60_000, why: 'its default MaxElapsedTime' };
  return { what, ms: null, why: 'a backoff not known here' };
}

/**
 * The wait of a call made inside loops: times the loops' counts where they are constant
 * (`for range 6`, `for i := 0; i < 6; i++`), unknown otherwise (a loop over items, `for {}`).
 */
export function inLoops(w: Wait, call: Node, body: Node, scope: Scope): Wait {
  let times = 1;
  let loops = 0;
  let exits = true;
  let deadline: number | null = null;
  for (let n = call.parent; n && n.id !== body.id; n = n.parent) {
    if (n.type === 'func_literal') break;
    if (n.type !== 'for_statement') continue;
    loops++;
    const add = loops === 1 ? deadlineOf(n, scope) : null;
    const until = add ? evalConst(add, scope) : null;
    // A loop until a deadline stops once its condition holds: a retry too.
    exits &&= until !== null || leavesEarly(n);
    if (until !== null) {
      deadline = until;
      continue;
    }
    const count = loopCount(n, scope);
    if (count === null) {
      const unknown = { ...w, ms: null, why: `${w.why}, in a loop` };
      // `time.Now().Add(timeout)`, timeout a variable: a caller may know it (boundAtCall), when
      // this is the only loop and the sleep is known.
      const name = unparen(add)?.type === 'identifier' ? add!.text : null;
      const only =
        name &&
        w.ms !== null &&
        ancestor(n, ['for_statement', 'func_literal'], body)?.type !== 'for_statement';
      return only ? { ...unknown, open: { name, kind: 'deadline', add: w.ms! } } : unknown;
    }
    times *= count;
  }
  const retry = loops > 0 && exits;
  if (deadline !== null && w.ms !== null) {
    // `for time.Now().Before(deadline) { ...; time.Sleep(d) }`: until the deadline, plus a sleep.
    return {
      ...w,
      ms: (deadline + w.ms) * times,
      why: `a loop until a deadline ${formatDuration(deadline)} away`,
      retry,
    };
  }
  if (times === 1 || w.ms === null) return loops ? { ...w, retry } : w;
  return { ...w, ms: w.ms * times, why: `${w.why}, ${times} times in a loop`, retry };
}

/**
 * Does the loop leave early once an attempt succeeds (a `return`, or a `break` of this loop, in
 * its body), as a hand-written retry does? A loop that always runs its count out is a poll.
 */
function leavesEarly(loop: Node): boolean {
  const b = field(loop, 'body');
  const own = (x: Node): boolean =>
    !descendants(b, 'func_literal').some(
      (f) => f.startIndex <= x.startIndex && x.endIndex <= f.endIndex,
    );
  if (descendants(b, 'return_statement').some(own)) return true;
  return descendants(b, 'break_statement').some(
    (k) => own(k) && !named(k).length && !ancestorWithin(k, loop),
  );
}

/** Is there a loop, switch or select between `n` and `loop` (a plain break would leave that)? */
function ancestorWithin(n: Node, loop: Node): boolean {
  for (let p = n.parent; p && p.id !== loop.id; p = p.parent)
    if (
      /^(for_statement|expression_switch_statement|type_switch_statement|select_statement)$/.test(
        p.type,
      )
    )
      return true;
  return false;
}

/**
 * `for time.Now().Before(deadline) && ...`, where `deadline := time.Now().Add(d)` with d constant:
 * the loop runs for at most d (milliseconds); null when it is not such a loop.
 */
/** `for time.Now().Before(deadline)` with `deadline := time.Now().Add(d)`: d's expression. */
function deadlineOf(loop: Node, scope: Scope): Node | null {
  const cond =
    field(named(loop).find((c) => c.type === 'for_clause') ?? null, 'condition') ??
    named(loop).find((c) => c.type === 'binary_expression' || c.type === 'call_expression') ??
    null;
  const m = cond ? /time\.Now\(\)\.Before\((\w+)\)/.exec(cond.text) : null;
  if (!m) return null;
  const bound = binding(m[1], scope);
  const add =
    bound?.type === 'call_expression' &&
    /^time\.Now\(\)\.Add$/.test(field(bound, 'function')?.text ?? '')
      ? callArgs(bound)[0]
      : null;
  return add ?? null;
}

function loopCount(loop: Node, scope: Scope): number | null {
  const range = named(loop).find((c) => c.type === 'range_clause');
  if (range) {
    const v = evalConst(field(range, 'right'), scope);
    return v !== null && Number.isInteger(v) ? v : null;
  }
  const clause = named(loop).find((c) => c.type === 'for_clause');
  const cond = field(clause, 'condition');
  if (cond?.type !== 'binary_expression') return null;
  const op = cond.childForFieldName('operator')?.type;
  const limit = evalConst(field(cond, 'right'), scope);
  const init = named(field(clause, 'initializer'));
  const start = init.length ? evalConst(named(field(init[0], 'right'))[0] ?? null, scope) : null;
  if (limit === null || start === null) return null;
  if (op === '<') return Math.max(0, limit - start);
  if (op === '<=') return Math.max(0, limit - start + 1);
  return null;
}
