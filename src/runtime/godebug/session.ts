/**
 * Runs a Go manager under Delve (`dlv dap`) and holds it at controller-runtime's phase
 * boundaries: each Step is one `continue` to the next phase breakpoint, read through DAP
 * (`stackTrace`, `scopes`, `variables`) into a `GoPhase`. Writes and live reads are stepped out
 * of before they are shown, so the phase carries the API server's answer from the cluster's own
 * record of this process's requests. Nothing here imports `vscode`: the editor and the tests
 * drive the same class.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, relative } from 'node:path';
import type { AuditEvent, AuditFilter } from '../../cluster/audit';
import { Emitter } from '../events';
import { managerFlags } from '../goprocess';
import { DapClient, startDelve, type DapMessage, type DelveServer } from './dap';
import {
  shortFunction,
  kindOfType,
  parseNamespacedName,
  parseResult,
  queueDecision,
  summarize,
  verbOf,
  type GoCall,
  type GoPhase,
} from './phases';
import type { ReconcileSymbol } from './reconcilers';
import type { PhaseSymbols, StopRole } from './symbols';

export interface GoDebugOptions {
  dlv: string;
  moduleDir: string;
  /** The package with `main`, relative to the module (the scaffold's `./cmd`). */
  program?: string;
  kubeconfig: string;
  metricsPort: number;
  symbols: PhaseSymbols;
  reconcilers: ReconcileSymbol[];
  /** The cluster's record of requests, and the user this process authenticates as. */
  audit: { events(filter?: AuditFilter): AuditEvent[] };
  user: string;
  env?: NodeJS.ProcessEnv;
}

interface Frame {
  id: number;
  name: string;
  line: number;
  source?: { path?: string };
}

interface Variable {
  name: string;
  value: string;
  type?: string;
  variablesReference: number;
}

export interface GoDebugEvents {
  phase: GoPhase;
  /** The process (or Delve) ended; `message` says how, with its last words. */
  exit: { message: string };
}

type Stopped = { reason: string; threadId: number };

export class GoDebugSession extends Emitter<GoDebugEvents> {
  private delve?: DelveServer;
  private dap?: DapClient;
  private waiters: Array<{ resolve: (s: Stopped) => void; reject: (e: Error) => void }> = [];
  private ended: Error | undefined;
  private signalEnded!: () => void;
  private readonly endedSignal = new Promise<void>((r) => (this.signalEnded = r));
  private auditSeq = 0;
  private readonly byName = new Map<string, { role: StopRole; method: string }>();
  private readonly byLine = new Map<string, StopRole>();
  /** The same functions as stack frames name them (package path shortened, no type parameters). */
  private readonly byFrame = new Map<string, { role: StopRole; method: string }>();
  /** Where Delve writes the debug build (removed by `stop`, which may kill Delve before it can). */
  private readonly binary = join(tmpdir(), `reconcile-studio-debug-${process.pid}-${Date.now()}`);
  /** The goroutine held at the last phase (DAP thread id). */
  threadId = 0;
  held: GoPhase | undefined;

  constructor(private readonly opts: GoDebugOptions) {
    super();
    for (const f of opts.symbols.functions) this.byName.set(f.name, f);
    for (const r of opts.reconcilers)
      this.byName.set(r.name, { role: 'reconcile', method: 'Reconcile' });
    for (const [name, f] of this.byName) this.byFrame.set(shortFunction(name), f);
    for (const l of opts.symbols.lines) this.byLine.set(`${l.file}:${l.line}`, l.role);
  }

  /**
   * Builds and starts the manager under Delve, breakpoints set; resolves once it runs. On
   * failure (a build error, a breakpoint Delve refuses) nothing is left running.
   */
  async start(): Promise<void> {
    try {
      await this.launch();
    } catch (err) {
      await this.stop();
      throw err;
    }
  }

  private async launch(): Promise<void> {
    const o = this.opts;
    this.delve = await startDelve(o.dlv, {
      cwd: o.moduleDir,
      env: { ...process.env, ...o.env, KUBECONFIG: o.kubeconfig },
    });
    this.delve.child.once('exit', () => this.end('Delve exited'));
    this.dap = await DapClient.connect(this.delve.port);
    this.dap.on('event', (e) => this.onEvent(e));
    this.dap.on('close', () => this.end('the debug adapter closed the connection'));
    await this.dap.request('initialize', {
      clientID: 'reconcile-studio',
      adapterID: 'go',
      linesStartAt1: true,
      columnsStartAt1: true,
      pathFormat: 'path',
      supportsVariableType: true,
    });
    const initialized = this.nextEvent('initialized');
    await this.dap.request('launch', {
      request: 'launch',
      mode: 'debug',
      program: o.program ?? './cmd',
      cwd: o.moduleDir,
      // The debug binary goes to the temp dir, not into the user's module as `__debug_bin…`.
      output: this.binary,
      // Leader election off: a held process would lose its Lease.
      args: managerFlags(o.metricsPort),
      stopOnEntry: false,
    });
    await initialized;
    const fns = await this.dap.request<{
      breakpoints: Array<{ verified: boolean; message?: string }>;
    }>('setFunctionBreakpoints', {
      breakpoints: [...this.byName.keys()].map((name) => ({ name })),
    });
    const names = [...this.byName.keys()];
    const bad = fns.breakpoints
      .map((b, i) => (b.verified ? '' : `${names[i]}: ${b.message ?? 'not verified'}`))
      .filter(Boolean);
    if (bad.length > 0)
      throw new Error(`Delve could not set the phase breakpoints: ${bad.join('; ')}`);
    const files = new Map<string, number[]>();
    for (const l of o.symbols.lines) files.set(l.file, [...(files.get(l.file) ?? []), l.line]);
    for (const [path, lines] of files) {
      await this.dap.request('setBreakpoints', {
        source: { path },
        breakpoints: lines.map((line) => ({ line })),
      });
    }
    await this.dap.request('configurationDone');
  }

  /** Runs to the next phase and holds there (the first call: to the first phase). */
  async step(): Promise<GoPhase> {
    const stopped = this.nextStop();
    if (this.threadId !== 0 || this.held)
      await this.dap!.request('continue', { threadId: this.threadId });
    try {
      return await this.phaseAt(await stopped);
    } catch (err) {
      // A program that died while held is first reported as a stop whose stack cannot be read;
      // Delve's `exited` follows. Say that, not the failed request.
      await Promise.race([this.endedSignal, new Promise((r) => setTimeout(r, 1000).unref())]);
      if (!this.ended && this.delve && !this.delve.programAlive()) this.end('the manager exited');
      throw this.ended ?? err;
    }
  }

  /** Interrupts a running process; resolves with the phase-less stop location. */
  async pause(): Promise<void> {
    const stopped = this.nextStop();
    await this.dap!.request('pause', { threadId: this.threadId || 1 });
    this.threadId = (await stopped).threadId;
  }

  /** Ends the process and Delve (its whole process group). */
  async stop(): Promise<void> {
    try {
      await Promise.race([
        this.dap?.request('disconnect', { terminateDebuggee: true }),
        new Promise((r) => setTimeout(r, 2000)),
      ]);
    } catch {
      // Already gone.
    }
    this.dap?.close();
    await this.delve?.kill();
    rmSync(this.binary, { force: true });
  }

  /** Delve's process id (the manager is its child), 0 before start. */
  delvePid(): number {
    return this.delve?.child.pid ?? 0;
  }

  /** What Delve and the manager printed (build errors, logs). */
  output(): string {
    return this.delve?.output() ?? '';
  }

  private async phaseAt(stop: Stopped): Promise<GoPhase> {
    this.threadId = stop.threadId;
    const frames = await this.frames(stop.threadId);
    const top = frames[0];
    const role =
      (top?.source?.path && this.byLine.get(`${top.source.path}:${top.line}`)) ??
      this.byFrame.get(shortFunction(top?.name ?? ''))?.role;
    if (!role) throw new Error(`stopped outside a phase (${stop.reason} in ${top?.name ?? '?'})`);
    const method = this.byFrame.get(shortFunction(top.name))?.method ?? '';
    const vars = await this.locals(top.id);
    const user = frames.find((f) => f.source?.path && this.inModule(f.source.path));
    const location = user ? { file: user.source!.path!, line: user.line } : undefined;
    const p = await this.describe(role, method, vars);
    const phase: GoPhase = { ...p, summary: summarize(p), location };
    this.held = phase;
    this.emit('phase', phase);
    return phase;
  }

  private async describe(
    role: StopRole,
    method: string,
    vars: Map<string, Variable>,
  ): Promise<Omit<GoPhase, 'summary'>> {
    const v = (name: string) => vars.get(name)?.value ?? '';
    switch (role) {
      case 'dequeue':
      case 'reconcile':
        return { phase: role, request: parseNamespacedName(v('req')) };
      case 'result': {
        const result = parseResult(v('result'), v('err'));
        const request = parseNamespacedName(v('req'));
        return {
          phase: 'result',
          request,
          reconcileID: unquote(v('reconcileID')),
          result,
          next: queueDecision(result),
        };
      }
      case 'cacheGet':
      case 'cacheList': {
        const gvk = await this.child(vars.get('c'), ['groupVersionKind']);
        const key =
          role === 'cacheGet' ? parseNamespacedName(v('key')) : { namespace: '', name: '' };
        const exists = role === 'cacheList' || v('exists') === 'true';
        const call: GoCall = {
          verb: role === 'cacheGet' ? 'get' : 'list',
          kind: /Kind: "([^"]*)"/.exec(gvk?.value ?? '')?.[1] ?? '',
          ...key,
          subresource: '',
          source: 'cache',
          code: exists ? 200 : 404,
          reason: exists ? undefined : 'NotFound',
        };
        return { phase: 'read', call };
      }
      case 'liveRead':
      case 'write':
      case 'status': {
        const obj = vars.get('obj');
        const name = await this.child(obj, ['ObjectMeta', 'Name']);
        const ns = await this.child(obj, ['ObjectMeta', 'Namespace']);
        const key =
          method === 'Get'
            ? parseNamespacedName(v('key'))
            : { namespace: unquote(ns?.value), name: unquote(name?.value) };
        const call: GoCall = {
          verb: verbOf(method),
          kind: kindOfType(obj?.type || obj?.value.split(' ')[0] || ''),
          ...key,
          subresource: role === 'status' ? 'status' : '',
          source: 'server',
        };
        await this.stepOut();
        this.answer(call);
        return { phase: role === 'liveRead' ? 'read' : role, call };
      }
    }
  }

  /** Runs the call to its return, so the cluster has answered it (one round trip). */
  private async stepOut(): Promise<void> {
    const stopped = this.nextStop();
    await this.dap!.request('stepOut', { threadId: this.threadId });
    this.threadId = (await stopped).threadId;
  }

  /** Fills in the call's code (and objects) from the newest matching request of this process. */
  private answer(call: GoCall): void {
    const events = this.opts.audit.events({ user: this.opts.user, since: this.auditSeq });
    if (events.length > 0) this.auditSeq = events[events.length - 1].seq;
    const verb = call.verb === 'apply' ? 'patch' : call.verb;
    const ev = events.reverse().find(
      (e) =>
        e.verb === verb &&
        e.subresource === call.subresource &&
        e.namespace === call.namespace &&
        // A create names its object in the body, not the URL.
        (!e.name || e.name === call.name),
    );
    if (!ev) return;
    call.code = ev.code;
    call.reason = ev.reason;
    call.message = ev.message;
    call.before = ev.before;
    call.after = ev.after;
  }

  private async frames(threadId: number): Promise<Frame[]> {
    const body = await this.dap!.request<{ stackFrames: Frame[] }>('stackTrace', {
      threadId,
      startFrame: 0,
      levels: 20,
    });
    return body.stackFrames;
  }

  private async locals(frameId: number): Promise<Map<string, Variable>> {
    const { scopes } = await this.dap!.request<{
      scopes: Array<{ name: string; variablesReference: number }>;
    }>('scopes', { frameId });
    const out = new Map<string, Variable>();
    const scope = scopes.find((s) => s.name.startsWith('Locals')) ?? scopes[0];
    if (!scope) return out;
    for (const v of await this.variables(scope.variablesReference))
      if (!out.has(v.name)) out.set(v.name, v);
    return out;
  }

  private async variables(ref: number): Promise<Variable[]> {
    if (ref === 0) return [];
    return (
      await this.dap!.request<{ variables: Variable[] }>('variables', { variablesReference: ref })
    ).variables;
  }

  /** Follows a field path through interfaces and pointers (Delve shows each as one child). */
  private async child(v: Variable | undefined, path: string[]): Promise<Variable | undefined> {
    let cur = v;
    for (const name of path) {
      let found: Variable | undefined;
      for (let hops = 0; cur && !found && hops < 4; hops++) {
        const kids = await this.variables(cur.variablesReference);
        found = kids.find((k) => k.name === name);
        if (!found) cur = kids.length === 1 ? kids[0] : undefined;
      }
      cur = found;
    }
    return cur;
  }

  private inModule(path: string): boolean {
    const rel = relative(this.opts.moduleDir, path);
    return !rel.startsWith('..') && !isAbsolute(rel);
  }

  private onEvent(e: DapMessage): void {
    if (e.event === 'stopped') {
      const body = e.body as { reason: string; threadId: number };
      this.waiters.shift()?.resolve({ reason: body.reason, threadId: body.threadId });
    } else if (e.event === 'terminated' || e.event === 'exited') {
      this.end('the manager exited');
    }
  }

  private end(why: string): void {
    if (this.ended) return;
    const last = this.output().trim().split('\n').slice(-8).join('\n');
    this.ended = new Error(`${why} while under the debugger${last ? `:\n${last}` : ''}`);
    for (const w of this.waiters.splice(0)) w.reject(this.ended);
    this.signalEnded();
    this.emit('exit', { message: this.ended.message });
    void this.delve?.kill();
  }

  private nextStop(): Promise<Stopped> {
    if (this.ended) return Promise.reject(this.ended);
    return new Promise((resolve, reject) => this.waiters.push({ resolve, reject }));
  }

  private nextEvent(name: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const off = this.dap!.on('event', (e) => {
        if (e.event === name) {
          off();
          resolve();
        }
      });
      this.on('exit', ({ message }) => reject(new Error(message)));
    });
  }
}

function unquote(value: string | undefined): string {
  return value ? value.replace(/^"|"$/g, '') : '';
}
