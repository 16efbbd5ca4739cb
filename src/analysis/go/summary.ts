/**
 * Function summaries across the whole Go module: what calling a function does, as far as the
 * rules care. Does it write status (how many times on one pass, and of which parameter), does it
 * return that write's error or drop it, how long may it block, which parameter's spec does it
 * change. A call in a reconcile path is resolved into any package of the module (go.mod's module
 * path: `common.UpdateStatus(...)`, `obj.SetDefaults()` on an API type, `r.Status.Set(...)` on a
 * field whose type another package declares), and the callee's summary is built from its body
 * and its own callees' summaries.
 *
 * Summaries are computed once and kept per function declaration node. Unchanged declarations
 * keep their nodes across edits (tree.ts), so after a keystroke only the edited functions, and
 * those whose callees' summaries changed, are summarized again: a cached summary is reused when
 * every call it depends on still resolves to the same declaration with the same summary.
 */
import { relative, dirname, sep } from 'node:path';
import { discarded, pardoned } from './errorfate';
import { statedIntent } from './intent';
import { sendsEarlierChanges } from './patchbase';
import { certainlyNonNil, type ErrorOf } from './errors';
import { StatusPasses, type WriteEvent } from './passes';
import { boolGuard, guardAtCall, type Guard } from './guards';
import { progressMarkers, worksBeforeWriting } from './progress';
import {
  importPathOf,
  paramsOf,
  receiverOf,
  type FuncDecl,
  type GoFile,
  type GoPackage,
} from './package';
import { isLocal } from './locals';
import { makePathFunc, tabled, type PathFunc } from './reconcilers';
import {
  ancestor,
  argVar,
  callArgs,
  callee,
  contains,
  descendants,
  field,
  inGoroutine,
  scheduled,
  mentions,
  named,
  unparen,
  type Node,
} from './syntax';
import { resultTypes, varType } from './vartypes';
import {
  blockingWait,
  boundAtCall,
  inLoops,
  RETRY_REPORTED_FROM_MS,
  shortRetry,
  type Wait,
} from './waits';

/** A place in some file of the module. */
export interface Site {
  file: GoFile;
  node: Node;
}

export interface FuncSummary {
  /** most status writes of one object on one path through the function (0, 1, 2+) */
  perPass: number;
  /** a status write made by the function (its own or a callee's), when it makes one */
  write: Site | null;
  /** which parameter the status write writes: its index, -1 the receiver, null unknown */
  writeParam: number | null;
  /** the write happens on every pass that gets past the function's error checks */
  always: boolean;
  /** the second status write of one pass, when there is one */
  twice: Site | null;
  /**
   * a status write whose error the function (or a callee) drops or only logs; `goroutine`: the
   * write runs in a goroutine, after the pass has ended (nothing the caller returns retries it)
   */
  drop: { how: string; site: Site; goroutine: boolean } | null;
  /** the function returns the error of a status write it makes */
  returnsStatusError: boolean;
  /**
   * a blocking call reached, with its longest wait (null when none worth reporting); `openParam`:
   * its bound depends on what is handed in at this parameter index (waits.boundAtCall)
   */
  block: { wait: Wait; site: Site; guard?: Guard; openParam?: number } | null;
  /** parameter index (-1 the receiver) → the spec field it changes, and where */
  spec: Map<number, { target: string; site: Site }>;
  /**
   * parameter index (-1 the receiver) → the write (`Update`, `Patch`) by which the function sends
   * the object as its caller left it: whatever the caller changed before the call goes too
   */
  writesBack: Map<number, string>;
  /**
   * Its error result is never nil ('always': every return builds one, `fmt.Errorf`), or is
   * whenever the argument at this index is not (it hands back the error it is given, after logging
   * or tracing it); null when it may return nil. Lets `return ..., logAndWrap(err, "...")` count
   * as a failure.
   */
  errorResult: 'always' | number | null;
}

const EMPTY: FuncSummary = {
  perPass: 0,
  write: null,
  writeParam: null,
  always: false,
  twice: null,
  drop: null,
  returnsStatusError: false,
  block: null,
  spec: new Map(),
  writesBack: new Map(),
  errorResult: null,
};

/** A function of the module named by import path, receiver type (or null) and name. */
export interface FuncRef {
  path: string;
  recv: string | null;
  name: string;
}

/** What the summaries ask of the module: its path and its packages by import path. */
export interface ModuleLike {
  readonly root: string;
  readonly path: string;
  package(importPath: string): GoPackage | null;
}

/** A call resolved for the rules: its answer, and what the reconciler cache records of it. */
interface CallHit {
  answer: { ref: FuncRef; summary: FuncSummary } | null;
  /** the recorder's key (null: the call reaches nothing of the module) */
  use: string | null;
  /** the fingerprint of the summary reached, recorded under `use` */
  print: string;
}

interface Entry {
  summary: FuncSummary;
  /** the file the summary was read from: any edit to it makes a new GoFile (lines moved) */
  file: GoFile;
  /** each call's target when summarized, and the callee summary used (null: in a cycle) */
  deps: { ref: FuncRef; node: Node | null; summary: FuncSummary | null }[];
}

/** Summaries being computed at once (a chain of callees) at most. */
const MAX_SUMMARY_DEPTH = 400;

/** Kept as long as the declaration's node lives: an edited declaration gets a new node. */
const cache = new WeakMap<Node, Entry>();

/** Figures for the bench and the tests: summaries computed vs reused. */
export const summaryStats = { computed: 0, reused: 0 };

export class Summaries {
  /** declarations whose cached entry this analysis already checked */
  private readonly checked = new Set<Node>();
  private readonly computing = new Set<Node>();

  constructor(
    /** the package being analyzed (its files as the editor has them) */
    readonly home: GoPackage,
    /** its import path ('' outside a module) */
    readonly homePath: string,
    readonly module: ModuleLike | null,
  ) {}

  private pkgAt(path: string): GoPackage | null {
    if (path === this.homePath) return this.home;
    return this.module?.package(path) ?? null;
  }

  /** Is this import path a package of the module? */
  inModule(path: string | null): path is string {
    const m = this.module?.path;
    return !!path && !!m && (path === m || path.startsWith(`${m}/`));
  }

  decl(ref: FuncRef): { pkg: GoPackage; decl: FuncDecl } | null {
    const pkg = this.pkgAt(ref.path);
    if (!pkg) return null;
    const decl = ref.recv ? pkg.promoted(ref.recv, ref.name) : pkg.functions.get(ref.name);
    return decl ? { pkg, decl } : null;
  }

  /**
   * The function a call in `decl` (of the package at `path`) reaches: a function or method of
   * the same package, a function of another package of the module, or a method of a type the
   * module declares (on a variable, a parameter or a receiver's field of that type).
   */
  resolve(pkg: GoPackage, path: string, decl: FuncDecl, call: Node): FuncRef | null {
    const c = callee(call);
    if (!c) return null;
    const file = decl.file;
    if (!c.operand) return pkg.functions.has(c.name) ? { path, recv: null, name: c.name } : null;
    const recv = decl.receiverType ? receiverOf(decl.node) : null;
    // `upgrade.Upgrade{Client: c}.Upgrade(ctx, obj)`: a method of the literal's type.
    const lit = unparen(c.operand);
    if (lit?.type === 'composite_literal' && field(lit, 'type'))
      return this.typeRef(file, path, field(lit, 'type')!, c.name);
    // `scaling.NewScaler(c).Scale(ctx)`: a method of the type the inner call returns, named
    // where that function is declared.
    if (lit?.type === 'call_expression') {
      const inner = this.target(pkg, path, decl, lit);
      const type = inner && resultTypes(inner.decl.node)[0];
      return type ? this.typeRef(inner.decl.file, inner.path, type, c.name) : null;
    }
    if (c.operand.type === 'identifier') {
      const x = c.operand.text;
      // A variable of the function hides the receiver and any import of that name.
      // (Asked only for a name that is the receiver's or an import's: the scope walk costs.)
      const special = x === recv?.name || !!importPathOf(file, x);
      const local = special && isLocal(decl.node, x, call);
      if (recv && x === recv.name && !local) return { path, recv: recv.type, name: c.name };
      const imported = local || x === recv?.name ? null : importPathOf(file, x);
      if (imported)
        return this.inModule(imported) ? { path: imported, recv: null, name: c.name } : null;
      // A type taken from a call's result is named in the callee's file and package.
      let from: { decl: FuncDecl; path: string } | null = null;
      const type = varType(decl.node, x, (inner) => {
        const t = inner.id === call.id ? null : this.target(pkg, path, decl, inner);
        if (t) from = t;
        return t?.decl.node ?? null;
      });
      const origin = from as { decl: FuncDecl; path: string } | null;
      if (type && origin && within(type, origin.decl.node))
        return this.typeRef(origin.decl.file, origin.path, type, c.name);
      if (type) return this.typeRef(file, path, type, c.name);
      return null;
    }
    // `r.Status.Set(...)`: a method of the receiver field's type; `rs.Spec.FillFrom(...)`: of a
    // variable's field (a parameter, a function literal's parameter).
    if (c.operand.type === 'selector_expression') {
      const op = unparen(field(c.operand, 'operand'));
      if (op?.type !== 'identifier') return null;
      const own = !!recv && op.text === recv.name && !isLocal(decl.node, op.text, call);
      const t = own ? null : varType(decl.node, op.text);
      const owner = own ? { path, recv: recv!.type } : t && this.typeRef(file, path, t, '');
      const home = owner && this.pkgAt(owner.path);
      const ft = home?.types.struct(owner!.recv)?.fields.get(field(c.operand, 'field')?.text ?? '');
      const m = ft && /^\*?(?:(\w+)\.)?(\w+)$/.exec(ft);
      if (!m) return null;
      // The field's type is named where the struct is declared: this file, or its package's.
      const p = !m[1]
        ? owner!.path
        : own
          ? importPathOf(file, m[1])
          : (home!.files.map((f) => importPathOf(f, m[1])).find((x) => x) ?? null);
      return this.inModule(p) || p === path ? { path: p!, recv: m[2], name: c.name } : null;
    }
    return null;
  }

  /**
   * The declaration a call reaches and its package's import path, for a type taken from a call's
   * result.
   */
  private target(
    pkg: GoPackage,
    path: string,
    decl: FuncDecl,
    call: Node,
  ): { decl: FuncDecl; path: string } | null {
    if (this.depth > 3) return null;
    this.depth++;
    try {
      const ref = this.resolve(pkg, path, decl, call);
      const found = ref && this.decl(ref);
      return ref && found ? { decl: found.decl, path: ref.path } : null;
    } finally {
      this.depth--;
    }
  }

  private depth = 0;

  private typeRef(file: GoFile, path: string, type: Node, name: string): FuncRef | null {
    let t: Node | null = type;
    while (t && (t.type === 'pointer_type' || t.type === 'parenthesized_type'))
      t = named(t)[0] ?? null;
    if (!t) return null;
    if (t.type === 'qualified_type') {
      const p = importPathOf(file, field(t, 'package')?.text ?? '');
      const n = field(t, 'name')?.text;
      return this.inModule(p) && n ? { path: p, recv: n, name } : null;
    }
    if (t.type === 'type_identifier') return { path, recv: t.text, name };
    return null;
  }

  /** The summary of the function a call in a path function reaches, or null (not in module). */
  ofCall(fn: PathFunc, call: Node): { ref: FuncRef; summary: FuncSummary } | null {
    // Every rule asks of the same calls: resolved once per analysis (the package and module do
    // not change during one), the use recorded again for whichever reconciler asks.
    let hit = this.calls.get(call);
    if (hit === undefined) {
      hit = this.summarizeCall(fn, call);
      this.calls.set(call, hit);
    }
    if (hit.use) this.home.recorder?.set(hit.use, hit.print);
    return hit.answer;
  }

  /**
   * Each call's answer, with the recorder's key for it built once: rules ask of the same calls
   * many times over (every write judged asks of every return's error), module-wide most of all.
   */
  private readonly calls = new Map<Node, CallHit>();

  private summarizeCall(fn: PathFunc, call: Node): CallHit {
    const ref = this.resolve(this.home, this.homePath, fn.decl, call);
    // `return r.inner.Reconcile(req)` into another package: that Reconcile is analyzed as a root
    // where it is declared, and its findings said again at this call would be each said twice.
    if (!ref || (ref.recv && ref.name === 'Reconcile' && ref.path !== this.homePath))
      return { answer: null, use: null, print: '' };
    const target = this.decl(ref);
    const summary = target ? this.summary(target.pkg, ref.path, target.decl) : null;
    return {
      answer: summary ? { ref, summary } : null,
      use: `u:${refKey(ref)}`,
      print: summary ? fingerprint(summary) : '',
    };
  }

  /** What the module knows of the error a call in a path function returns (see `ErrorOf`). */
  errorOf(fn: PathFunc): ErrorOf {
    // One function per path function: asked again for every write judged and return followed.
    let f = this.errorOfs.get(fn);
    if (!f) {
      f = (call) => this.ofCall(fn, call)?.summary.errorResult ?? null;
      this.errorOfs.set(fn, f);
    }
    return f;
  }

  private readonly errorOfs = new Map<PathFunc, ErrorOf>();

  /** The summary of `decl`, from the cache when its dependencies still answer the same. */
  summary(pkg: GoPackage, path: string, decl: FuncDecl): FuncSummary {
    const node = decl.node;
    // In a cycle, or a chain of calls deeper than any real helper stack (a generated package of
    // a thousand steps): nothing more is known, and the JS stack is spared.
    if (this.computing.has(node) || this.computing.size >= MAX_SUMMARY_DEPTH) return EMPTY;
    const cached = cache.get(node);
    if (
      cached &&
      cached.file === decl.file &&
      (this.checked.has(node) || this.stillValid(cached))
    ) {
      this.checked.add(node);
      summaryStats.reused++;
      return cached.summary;
    }
    this.computing.add(node);
    try {
      const entry = this.compute(pkg, path, decl);
      cache.set(node, entry);
      this.checked.add(node);
      summaryStats.computed++;
      return entry.summary;
    } finally {
      this.computing.delete(node);
    }
  }

  private stillValid(entry: Entry): boolean {
    for (const dep of entry.deps) {
      const target = this.decl(dep.ref);
      if ((target?.decl.node ?? null) !== dep.node) return false;
      if (!target || dep.summary === null) continue;
      if (this.summary(target.pkg, dep.ref.path, target.decl) !== dep.summary) return false;
    }
    return true;
  }

  /** `fingerprint` of the summary a recorded call now reaches (for analyze.ts's cache check). */
  answer(key: string): string {
    const [path, rest] = key.split(' ');
    const dot = rest.lastIndexOf('.');
    const ref = { path, recv: rest.slice(0, dot) || null, name: rest.slice(dot + 1) };
    const target = this.decl(ref);
    return target ? fingerprint(this.summary(target.pkg, path, target.decl)) : '';
  }

  private compute(pkg: GoPackage, path: string, decl: FuncDecl): Entry {
    const deps: Entry['deps'] = [];
    const fn = makePathFunc(pkg, decl, false);
    if (!fn) return { summary: EMPTY, deps, file: decl.file };
    const params = paramsOf(decl.node);
    const names = params.map((p) => p.name);
    const indexOf = (name: string | null): number | null => {
      if (name === null) return null;
      if (name === fn.receiver) return -1;
      const i = params.findIndex((p) => p.name === name);
      return i >= 0 ? i : null;
    };
    const out: FuncSummary = { ...EMPTY, spec: new Map(), writesBack: new Map() };
    const events: WriteEvent[] = [];
    // What a callee's error is, asked on demand (its summary is a dependency all the same: every
    // call of the body is resolved and recorded in the walk over calls below).
    const errorOf: ErrorOf = (call) => {
      const ref = this.resolve(pkg, path, decl, call);
      const target = ref && this.decl(ref);
      return target ? this.summary(target.pkg, ref.path, target.decl).errorResult : null;
    };

    // This function's own status writes: what becomes of each one's error.
    for (const cc of fn.clientCalls) {
      if (cc.method === 'Get' && !cc.status) {
        events.push({ call: cc.call, key: argVar(cc.args[2]) ?? '', n: 0, refresh: true });
        continue;
      }
      if (!cc.status || cc.method === 'Create') continue;
      const key = argVar(cc.args[1]) ?? cc.args[1]?.text ?? '';
      events.push({ call: cc.call, key, n: 1, refresh: false });
      out.write ??= { file: fn.file, node: cc.call };
      out.writeParam ??= indexOf(rootVar(cc.args[1]));
      out.always ||= unconditional(fn.body, cc.call);
      this.errorFate(fn, cc.call, out, errorOf);
    }

    // Writes of a parameter that send what its caller changed (its own first, callees' below).
    for (const cc of fn.clientCalls) {
      const at = indexOf(argVar(cc.args[1]));
      if (at !== null && !out.writesBack.has(at) && sendsEarlierChanges(fn.body, cc))
        out.writesBack.set(at, cc.method);
    }

    // Assignments to a parameter's (or the receiver's) spec: its own first, then its callees'.
    // A method of the spec type, or of a type the spec embeds, changes the spec's own fields.
    const ofSpec =
      !!fn.receiver &&
      (isSpecType(decl.receiverType) || pkg.types.embeddedInSpec(decl.receiverType));
    for (const a of descendants(fn.body, [
      'assignment_statement',
      'inc_statement',
      'dec_statement',
    ])) {
      const targets =
        a.type === 'assignment_statement' ? named(field(a, 'left')) : named(a).slice(0, 1);
      for (const t of targets) {
        const m = /^(\w+)\.Spec\b/.exec(t.text);
        // A method of the spec type (`func (s *ShopSpec) withDefaults()`): its receiver's fields
        // are the spec's, named as the object's (`s.Spec.Image`) for the caller.
        const own = !m && ofSpec ? new RegExp(`^${fn.receiver}\\.(\\w+)`).exec(t.text) : null;
        const i = m ? indexOf(m[1]) : own ? -1 : null;
        if (i === null || out.spec.has(i)) continue;
        if (i >= 0 && params[i].type.type !== 'pointer_type') continue;
        if (i === -1 && field(receiverParam(decl.node), 'type')?.type !== 'pointer_type') continue;
        const target = own ? `${fn.receiver}.Spec${t.text.slice(fn.receiver!.length)}` : t.text;
        out.spec.set(i, { target, site: { file: fn.file, node: a } });
      }
    }
    for (const call of fn.calls) {
      // One target, or each function value a table of the package holds (`u.upgradeStack(...)`).
      const one = this.resolve(pkg, path, decl, call);
      const refs: FuncRef[] = one
        ? [one]
        : tabled(pkg, decl.node, decl.file, call).map((d) => ({
            path,
            recv: d.receiverType,
            name: d.name,
          }));
      for (const ref of refs) {
        const target = this.decl(ref);
        const cycle = !!target && this.computing.has(target.decl.node);
        const s = target ? this.summary(target.pkg, ref.path, target.decl) : EMPTY;
        deps.push({ ref, node: target?.decl.node ?? null, summary: cycle || !target ? null : s });
        if (!target || s === EMPTY) continue;
        const args = callArgs(call);
        const argOf = (i: number | null): string | null =>
          i === null ? null : i === -1 ? receiverArg(call) : argVar(args[i]);
        if (s.perPass > 0 && s.write) {
          const v = argOf(s.writeParam);
          events.push({ call, key: v ?? `?${call.id}`, n: s.perPass, refresh: false });
          out.write ??= s.write;
          out.writeParam ??= indexOf(v);
          out.always ||= s.always && unconditional(fn.body, call);
        }
        if (s.drop && !out.drop && !inGoroutine(call, fn.body)) out.drop = s.drop;
        if (s.returnsStatusError) this.errorFate(fn, call, out, errorOf);
        if (s.block && !out.block && !inGoroutine(call, fn.body)) {
          // A wait the callee makes only when a bool argument says so (guards.ts).
          const passed = guardAtCall(s.block.guard, args, names);
          if (passed !== 'off') {
            const guard = boolGuard(fn.body, call, names) ?? passed ?? undefined;
            const scope = { body: fn.body, files: pkg.files };
            const b = boundAtCall(s.block.wait, s.block.openParam, args, scope, fn.file, names);
            out.block = { wait: b.wait, site: s.block.site, guard, openParam: b.param };
          }
        }
        for (const [i, change] of s.spec) {
          const at = indexOf(argOf(i));
          if (at !== null && !out.spec.has(at)) out.spec.set(at, change);
        }
        for (const [i, method] of s.writesBack) {
          const at = indexOf(argOf(i));
          if (at !== null && !out.writesBack.has(at)) out.writesBack.set(at, method);
        }
      }
    }

    // Status writes along one path: a helper that writes twice in one pass.
    if (events.some((e) => !e.refresh)) {
      const writes = events.filter((e) => !e.refresh).map((e) => e.call);
      new StatusPasses(
        events,
        (w, before) => {
          const total = before + w.n;
          if (total > out.perPass) out.perPass = total;
          if (total >= 2 && !out.twice) out.twice = { file: fn.file, node: w.call };
        },
        progressMarkers(fn.body, fn.calls, writes, (call) => {
          const ref = this.resolve(pkg, path, decl, call);
          const target = ref ? this.decl(ref) : null;
          return !!target && worksBeforeWriting(target.decl.node);
        }),
      ).block(statementsOf(fn.body), new Map());
      out.perPass = Math.max(out.perPass, 1);
    }

    // Blocking calls of its own, outside goroutines: the longest reported wait.
    for (const call of fn.calls) {
      const scope = { body: fn.body, files: pkg.files };
      const found = blockingWait(fn.file, call, scope);
      if (!found || !worthReporting(found) || inGoroutine(call, fn.body)) continue;
      const wait = inLoops(found, call, fn.body, scope);
      if (shortRetry(wait)) continue;
      const site = { file: fn.file, node: call };
      const guard = boolGuard(fn.body, call, names) ?? undefined;
      const openParam = wait.open ? names.indexOf(wait.open.name) : -1;
      if (!out.block || longer(wait, out.block.wait))
        out.block = { wait, site, guard, ...(openParam >= 0 && { openParam }) };
    }

    out.errorResult = errorResult(fn, params, errorOf);
    return { summary: out, deps, file: decl.file };
  }

  /** Records what `fn` does with the error of `call` (a status write, or a helper returning one). */
  private errorFate(fn: PathFunc, call: Node, out: FuncSummary, errorOf: ErrorOf): void {
    const v = discarded(fn, call);
    if (v === null) {
      if (returnsIt(fn, call)) out.returnsStatusError = true;
      return;
    }
    if (out.drop || v.kind === 'swallowed' || pardoned(fn, call, v, errorOf)) return;
    // A cron job or timer callback runs outside any reconcile; a goroutine the path starts is
    // part of it, as the rule holds for the controller's own package.
    if (scheduled(call, fn.body)) return;
    // Dropped on purpose, as a comment there says: not reported in the helper's own package
    // either, so not at its callers.
    if (statedIntent(fn.file, call)) return;
    const goroutine = !!ancestor(call, ['go_statement'], fn.body);
    out.drop = {
      how: `${v.kind === 'logged' ? 'only logged' : 'discarded'}${goroutine ? ' in a goroutine' : ''}`,
      site: { file: fn.file, node: call },
      goroutine,
    };
  }
}

/**
 * Does `fn` hand back the error of `call` as its own, as a status helper does? The call must be
 * returned (`return c.Status().Update(...)`, also from a closure handed to RetryOnConflict), and
 * `fn` must be about status: named for it, or with nothing else to return (its other returns
 * give nil). A function that does other work and returns its errors too (ensureVersion) is not
 * one: dropping its error is a choice about that work, not a dropped status write.
 */
function returnsIt(fn: PathFunc, call: Node): boolean {
  if (fn.results[fn.results.length - 1] !== 'error') return false;
  const ret = ancestor(call, ['return_statement'], fn.body) ?? checkedReturn(call, fn.body);
  if (!ret) return false;
  if (/status/i.test(fn.decl.name)) return true;
  // With no other call to the API server, the failures returned before the write are checks of
  // its input (keda's TransformObject: a transform that fails, an unknown type), not other work.
  const only = fn.clientCalls.every((cc) => cc.status);
  return descendants(fn.body, 'return_statement').every((r) => {
    if (ancestor(r, ['func_literal'], fn.body)) return true;
    const exprs = named(named(r)[0]);
    const last = exprs[exprs.length - 1];
    return (
      !last ||
      last.text === 'nil' ||
      contains(last, call) ||
      contains(r, call) ||
      r.id === ret.id ||
      (only && r.endIndex <= call.startIndex)
    );
  });
}

/**
 * `if err := c.Status().Update(ctx, obj); err != nil { ...; return err }` (or `err := ...` and
 * the `if` after it): the return that hands the write's error back, maybe wrapped, or null.
 */
function checkedReturn(call: Node, body: Node): Node | null {
  const stmt = call.parent?.type === 'expression_list' ? call.parent.parent : null;
  if (stmt?.type !== 'short_var_declaration' && stmt?.type !== 'assignment_statement') return null;
  const left = named(field(stmt, 'left'));
  const last = left[left.length - 1];
  const err = last?.type === 'identifier' && named(call.parent!).length === 1 ? last.text : null;
  if (!err || err === '_') return null;
  let check: Node | null = null;
  if (stmt.parent?.type === 'if_statement' && field(stmt.parent, 'initializer')?.id === stmt.id)
    check = stmt.parent;
  else if (stmt.parent?.type === 'statement_list') {
    const siblings = named(stmt.parent);
    check = siblings[siblings.findIndex((x) => x.id === stmt.id) + 1] ?? null;
  }
  if (check?.type !== 'if_statement') return null;
  if (field(check, 'condition')?.text.replace(/\s+/g, ' ') !== `${err} != nil`) return null;
  const consequence = field(check, 'consequence');
  return (
    descendants(consequence, 'return_statement').find((r) => {
      if (ancestor(r, ['func_literal'], consequence!)) return false;
      const exprs = named(named(r)[0]);
      const last = exprs[exprs.length - 1];
      return !!last && mentions(last, err);
    }) ??
    joinedReturn(consequence, err, body) ??
    returnAfter(check, err)
  );
}

/** `if err != nil { log }` and then `return err`: the return right after the `if`. */
function returnAfter(check: Node, err: string): Node | null {
  if (check.parent?.type !== 'statement_list') return null;
  const siblings = named(check.parent);
  const next = siblings[siblings.findIndex((x) => x.id === check.id) + 1];
  if (next?.type !== 'return_statement') return null;
  const exprs = named(named(next)[0]);
  const last = exprs[exprs.length - 1];
  return last?.type === 'identifier' && last.text === err ? next : null;
}

/** Calls that gather errors into one: errors.Join, multierr.Append, append to a list. */
const GATHER = /^(Join|Append|append|Combine)$/;

/**
 * `if err != nil { errs = errors.Join(errs, err) }` (or `append(errs, err)`, multierr): the
 * error is gathered into a variable, and the return of the function that hands that variable
 * back (`return errs`, `return "...", errs`) hands the write's error back too.
 */
function joinedReturn(consequence: Node | null, err: string, body: Node): Node | null {
  for (const a of descendants(consequence, 'assignment_statement')) {
    const left = named(field(a, 'left'));
    const right = named(field(a, 'right'));
    if (left.length !== 1 || right.length !== 1 || left[0].type !== 'identifier') continue;
    const c = right[0].type === 'call_expression' ? right[0] : null;
    if (!c || !GATHER.test(callee(c)?.name ?? '') || !mentions(c, err)) continue;
    const into = left[0].text;
    const ret = descendants(body, 'return_statement').find((r) => {
      const lit = (n: Node): number => ancestor(n, ['func_literal'], body)?.id ?? -1;
      if (lit(r) !== lit(consequence!)) return false;
      const exprs = named(named(r)[0]);
      const last = exprs[exprs.length - 1];
      return !!last && mentions(last, into);
    });
    if (ret) return ret;
  }
  return null;
}

/**
 * Is the function's error result never nil ('always'), or non-nil whenever one parameter is (its
 * index)? Every return outside function literals must give an error built there (`fmt.Errorf`,
 * a helper known to), or the parameter itself, or the parameter wrapped (`errors.Wrap(err, ...)`,
 * or a helper that passes its argument on). A function with no return, or one `return nil`, may
 * return nil.
 */
function errorResult(
  fn: PathFunc,
  params: readonly { name: string }[],
  errorOf: ErrorOf,
): 'always' | number | null {
  if (fn.results[fn.results.length - 1] !== 'error') return null;
  const returns = descendants(fn.body, 'return_statement').filter(
    (r) => !ancestor(r, ['func_literal'], fn.body),
  );
  if (returns.length === 0) return null;
  let param: number | null = null;
  for (const r of returns) {
    const exprs = named(named(r)[0]);
    if (exprs.length !== fn.results.length) return null;
    const last = exprs[exprs.length - 1];
    if (certainlyNonNil(last, fn.body, errorOf)) continue;
    const i = passedOn(last, params, errorOf);
    if (i === null || (param !== null && param !== i)) return null;
    param = i;
  }
  return param ?? 'always';
}

/** The parameter an error expression hands back: `err`, `errors.Wrap(err, ...)`, `trace(err)`. */
function passedOn(
  expr: Node,
  params: readonly { name: string }[],
  errorOf: ErrorOf,
): number | null {
  const e = unparen(expr);
  if (e?.type === 'identifier') {
    const i = params.findIndex((p) => p.name === e.text);
    return i >= 0 ? i : null;
  }
  if (e?.type !== 'call_expression') return null;
  const c = callee(e);
  const known = errorOf(e);
  const at = /^(Wrap|Wrapf|WithStack|WithMessage|WithMessagef)$/.test(c?.name ?? '') ? 0 : known;
  if (typeof at !== 'number') return null;
  const arg = callArgs(e)[at];
  return arg ? passedOn(arg, params, errorOf) : null;
}

/** Reported waits: time and wait.* always, retry libraries from a second on or when unknown. */
export function worthReporting(w: Wait): boolean {
  if (w.lib === 'time' || w.lib === 'wait') return true;
  // A wait.Backoff not known here (a helper's parameter) is most often a conflict backoff.
  if (w.ms === null) return w.lib !== 'client-go-retry' && w.lib !== 'wait-backoff';
  return w.ms >= RETRY_REPORTED_FROM_MS;
}

function longer(a: Wait, b: Wait): boolean {
  if (b.ms === null) return false;
  return a.ms === null || a.ms > b.ms;
}

function statementsOf(body: Node): Node[] {
  return named(body)
    .flatMap((c) => (c.type === 'statement_list' ? named(c) : [c]))
    .filter((s) => s.type !== 'comment');
}

function receiverParam(method: Node): Node | null {
  return named(field(method, 'receiver')).find((n) => n.type === 'parameter_declaration') ?? null;
}

/** The variable an argument is rooted at: `&x` and `x.f.g` → x (`dfi.df` is the receiver's). */
function rootVar(arg: Node | undefined): string | null {
  let n = unparen(arg ?? null);
  if (n?.type === 'unary_expression') n = unparen(field(n, 'operand'));
  while (n?.type === 'selector_expression') n = unparen(field(n, 'operand'));
  return n?.type === 'identifier' ? n.text : null;
}

/** Nodes a call may sit in and still run whenever its statement does. */
const STRAIGHT = new Set([
  'expression_statement',
  'return_statement',
  'assignment_statement',
  'short_var_declaration',
  'expression_list',
  'argument_list',
  'call_expression',
  'parenthesized_expression',
  'unary_expression',
]);

/**
 * Does `call` run on every pass through `body` that gets past its error checks? It must sit in
 * a top-level statement (or an `if`'s initializer: `if err := write(); err != nil`), and the
 * statements before it may return only under a condition on an error (`if err != nil`).
 */
function unconditional(body: Node, call: Node): boolean {
  let x: Node = call;
  for (let p = x.parent; p && p.id !== body.id; x = p, p = p.parent) {
    if (p.type === 'statement_list' && p.parent?.id === body.id) break;
    if (p.type === 'if_statement' && field(p, 'initializer')?.id === x.id) continue;
    if (!STRAIGHT.has(p.type)) return false;
  }
  const top = statementsOf(body);
  const at = top.findIndex((t) => t.id === x.id);
  if (at < 0) return false;
  return top.slice(0, at).every((t) =>
    descendants(t, 'return_statement').every((r) => {
      if (ancestor(r, ['func_literal'], t)) return true;
      const guard = ancestor(r, ['if_statement'], t);
      return !!guard && /\berr\w*\s*!=\s*nil/i.test(field(guard, 'condition')?.text ?? '');
    }),
  );
}

/** `obj.M(...)` → `obj`: the variable a method is called on. */
export function receiverArg(call: Node): string | null {
  const op = unparen(callee(call)?.operand ?? null);
  if (op?.type === 'identifier') return op.text;
  // `obj.Spec.withDefaults()`: a method of the spec type changes obj's spec.
  const root = op?.type === 'selector_expression' ? unparen(field(op, 'operand')) : null;
  return root?.type === 'identifier' && field(op, 'field')?.text === 'Spec' ? root.text : null;
}

/** A spec type's name: `ShopSpec`, `SolrCloudSpec`. */
function isSpecType(name: string | null): boolean {
  return !!name && /^[A-Z]\w*Spec$/.test(name);
}

function refKey(ref: FuncRef): string {
  return `${ref.path} ${ref.recv ?? ''}.${ref.name}`;
}

const fingerprints = new WeakMap<FuncSummary, string>();

/**
 * What a cached reconciler analysis compares: the summary as the rules read it, with lines.
 * Kept per summary: a summary is made anew whenever its file changes, so its lines stay true.
 */
export function fingerprint(s: FuncSummary): string {
  let f = fingerprints.get(s);
  if (f === undefined) {
    f = computeFingerprint(s);
    fingerprints.set(s, f);
  }
  return f;
}

function computeFingerprint(s: FuncSummary): string {
  const at = (x: Site | null): string =>
    x
      ? `${x.file.path}:${x.file.lines.range(x.node.startIndex, x.node.startIndex).start.line}`
      : '';
  return [
    s.perPass,
    at(s.write),
    s.writeParam,
    s.always,
    at(s.twice),
    s.drop ? `${s.drop.how}@${at(s.drop.site)}` : '',
    s.returnsStatusError,
    s.block
      ? `${s.block.wait.what}:${s.block.wait.ms}:${s.block.wait.why}@${at(s.block.site)}:${s.block.guard ? `${s.block.guard.param}=${s.block.guard.when}` : ''}:${s.block.openParam ?? ''}`
      : '',
    [...s.spec].map(([i, c]) => `${i}=${c.target}@${at(c.site)}`).join(','),
    [...s.writesBack].map(([i, m]) => `${i}=${m}`).join(','),
    s.errorResult,
  ].join('|');
}

/** `file:line` of a site as seen from the folder of `from`. */
export function siteName(from: string, site: Site): string {
  const line = site.file.lines.range(site.node.startIndex, site.node.startIndex).start.line + 1;
  return `${relativeName(dirname(from), site.file)}:${line}`;
}

/**
 * A file's path relative to a folder, kept per file: every call of a module helper that is
 * reported names the helper's file from the caller's folder, the same few pairs over and over.
 */
function relativeName(dir: string, file: GoFile): string {
  let byDir = relativeNames.get(file);
  if (!byDir) {
    byDir = new Map();
    relativeNames.set(file, byDir);
  }
  let name = byDir.get(dir);
  if (name === undefined) {
    name = relative(dir, file.path).split(sep).join('/') || file.path;
    byDir.set(dir, name);
  }
  return name;
}

/** Gone with the file (an edit makes a new GoFile). */
const relativeNames = new WeakMap<GoFile, Map<string, string>>();

/** How a call names its target, for messages: `common.UpdateStatus`, `obj.SetDefaults`. */
export function callName(call: Node): string {
  const f = field(call, 'function');
  if (!f) return 'the call';
  // `upgrade.Upgrade{Client: c, ...}.Upgrade`: the literal's fields say nothing here.
  const lit = descendants(f, 'literal_value')[0];
  const text = lit
    ? f.text.slice(0, lit.startIndex - f.startIndex) +
      '{…}' +
      f.text.slice(lit.endIndex - f.startIndex)
    : f.text;
  return text.replace(/\s+/g, '');
}

/** Is `node` inside `outer` (by the tree, so nodes of two files are never confused)? */
function within(node: Node, outer: Node): boolean {
  for (let n: Node | null = node; n; n = n.parent) if (n.id === outer.id) return true;
  return false;
}
