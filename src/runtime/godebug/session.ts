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
import { join } from 'node:path';
import { Emitter } from '../events';
import { managerFlags } from '../goprocess';
import { DapClient, startDelve, type DapMessage, type DelveServer } from './dap';
import { EditorView } from './editorview';
import { delveGoProblem, explainDelveRefusal } from './goversion';
import type { GoPhase } from './phases';
import { PhaseReader, type PhaseReaderOptions, type Stopped } from './stops';

export interface GoDebugOptions extends PhaseReaderOptions {
  dlv: string;
  /** The package with `main`, relative to the module (the scaffold's `./cmd`). */
  program?: string;
  kubeconfig: string;
  metricsPort: number;
  env?: NodeJS.ProcessEnv;
}

export interface GoDebugEvents {
  phase: GoPhase;
  /** The process (or Delve) ended; `message` says how, with its last words. */
  exit: { message: string };
}

export class GoDebugSession extends Emitter<GoDebugEvents> {
  private delve?: DelveServer;
  private dap?: DapClient;
  private waiters: Array<{ resolve: (s: Stopped) => void; reject: (e: Error) => void }> = [];
  private ended: Error | undefined;
  private signalEnded!: () => void;
  private readonly endedSignal = new Promise<void>((r) => (this.signalEnded = r));
  readonly reader: PhaseReader;
  /** Where Delve writes the debug build (removed by `stop`, which may kill Delve before it can). */
  private readonly binary = join(tmpdir(), `reconcile-studio-debug-${process.pid}-${Date.now()}`);
  constructor(private readonly opts: GoDebugOptions) {
    super();
    this.reader = new PhaseReader(
      { request: (c, a) => this.dap!.request(c, a), nextStop: () => this.nextStop() },
      opts,
    );
  }

  /**
   * Builds and starts the manager under Delve, breakpoints set; resolves once it runs. On
   * failure (a build error, a breakpoint Delve refuses) nothing is left running.
   */
  async start(): Promise<void> {
    // A Go Delve cannot debug is said before anything is built or started.
    const problem = await delveGoProblem(this.opts.dlv, { ...process.env, ...this.opts.env });
    if (problem) throw new Error(problem);
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
    await this.launchRequest({
      request: 'launch',
      mode: 'debug',
      program: o.program ?? './cmd',
      cwd: o.moduleDir,
      // The debug binary goes to the temp dir, not into the user's module as `__debug_bin…`.
      output: this.binary,
      // Leader election off: a held process would lose its Lease.
      args: managerFlags(o.metricsPort),
      stopOnEntry: false,
      hideSystemGoroutines: true,
    });
    await initialized;
    // The same requests the editor's relay sends before VS Code configures its session.
    const view = new EditorView(
      { functions: this.reader.functionBreakpoints(), lines: this.reader.lineBreakpoints() },
      o.moduleDir,
    );
    const bad = await view.setInternal((command, args) => this.dap!.request(command, args));
    if (bad.length > 0)
      throw new Error(`Delve could not set the phase breakpoints: ${bad.join('; ')}`);
    await this.dap.request('configurationDone');
  }

  /** Delve's `launch`; its refusal of the Go version (when not caught before) said plainly. */
  private async launchRequest(args: Record<string, unknown>): Promise<void> {
    try {
      await this.dap!.request('launch', args);
    } catch (err) {
      const why = explainDelveRefusal(`${(err as Error).message}\n${this.output()}`);
      throw why ? new Error(why) : err;
    }
  }

  /** Runs to the next phase and holds there (the first call: to the first phase). */
  async step(): Promise<GoPhase> {
    const stopped = this.nextStop();
    if (this.reader.held) await this.dap!.request('continue', { threadId: this.reader.threadId });
    try {
      const phase = await this.reader.phaseAt(await stopped);
      this.emit('phase', phase);
      return phase;
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
    await this.dap!.request('pause', { threadId: this.reader.threadId || 1 });
    this.reader.threadId = (await stopped).threadId;
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

  /** One DAP request and its answer (`threads`): the unit a Step's latency is measured in. */
  async roundTrip(): Promise<void> {
    await this.dap!.request('threads');
  }

  /** Delve's process id (the manager is its child), 0 before start. */
  delvePid(): number {
    return this.delve?.child.pid ?? 0;
  }

  /** What Delve and the manager printed (build errors, logs). */
  output(): string {
    return this.delve?.output() ?? '';
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
