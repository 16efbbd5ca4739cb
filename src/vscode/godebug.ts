/**
 * Debug Go Operator: the workspace's manager as a VS Code debug session of our own type,
 * `reconcile-studio-go`, whose adapter is Delve's DAP server (`dlv dap`, spawned here as
 * vscode-go's debug factory does). Delve's connection is relayed to VS Code and shared with the
 * Go debugger's reader, which turns each `stopped` event into a phase for the Reconcile Debugger
 * panel. The phase breakpoints are set through Delve directly and kept out of VS Code's
 * Breakpoints view, and a held phase is shown in the user's frame (`godebug/editorview.ts`). The
 * cluster's clock is frozen while the process is held.
 */
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FaultInjector } from '../cluster/faults';
import { holdWarnings, noteManagerLine, type ManagerExposure } from './model/holdsafety';
import type { ClusterTargetPicker, OperatorEndpoint } from './clustertarget';
import { writeKubeconfigFile } from '../cluster/auth/kubeconfig';
import {
  PHASES,
  type DebuggerSnapshot,
  type DebuggerState,
  type FindingView,
  type WebviewMessage,
} from '../protocol';
import type { DapClient, DapMessage, DelveServer } from '../runtime/godebug/dap';
import { EditorView, type DapRequest } from '../runtime/godebug/editorview';
import { holdReason, type GoBreakpoints, type Stepping } from '../runtime/godebug/holds';
import type { PhaseReader, Stopped } from '../runtime/godebug/stops';
import type { ObservedManager } from '../runtime/observedcontroller';
import type { DiscoveringApiServer, RemoteFindingsSource } from '../runtime/remotefindings';
import { parseZapLine } from '../runtime/zaplog';
import { VirtualClock } from '../util/clock';
import type { ClusterSession } from './clustersession';
import { DebuggerPanel } from './debuggerpanel';
import { pickModule } from './gooperator';
import { describeTrigger, OUTCOME_TO_RUNTIME } from './model/traceview';
import { describeCall } from './model/debuggerfaults';
import { GoDebugFaults } from './model/godebugfaults';
import { objectByKind } from './model/clusterobject';
import { ManagerLog } from './model/managerlog';
import {
  controllerOf,
  goDebuggerState,
  reconcileIdOf,
  reconciledKeyOf,
  type GoStop,
  type Reconciled,
} from './model/godebugview';
import { restoredMessage } from './model/restoredsession';
import { MAX_HOLDS, pushPoint, queueDepthOf } from './model/chartseries';
import type { Logger } from './output';
import type { QueueTreeProvider } from './queuetree';
import { showBuildProblems, showBuildStatus } from './buildstatus';
import { plural } from './model/timeformat';

export const GO_DEBUG_TYPE = 'reconcile-studio-go';
/** The debugged manager's own user, so the audit record tells its requests apart. */
const GO_DEBUG_USER = 'go-operator-debug';

/** Delve's own lines on its stdout, not the program's: where it listens, and its warnings. */
const DELVE_OWN_LINE =
  /^(DAP server listening at|API server listening at|\d{4}-\d\d-\d\dT\S+ (warning|error) layer=)/;

/** Requests after which the program runs again. */
const RUN = new Set(['continue', 'next', 'stepIn', 'stepOut']);

/**
 * VS Code's adapter for a session: Delve's DAP connection relayed as it is, shared with our
 * reader, whose requests go straight to Delve — not through the workbench and back, which in
 * code-server is a round trip through the browser per request.
 */
export class DelveRelay implements vscode.DebugAdapter {
  private readonly sent = new vscode.EventEmitter<vscode.DebugProtocolMessage>();
  readonly onDidSendMessage = this.sent.event;

  private stopListener: ((s: Stopped, show: (held?: HeldStop) => void) => void) | undefined;
  /** What VS Code sees of Delve: its own breakpoints only, phase stops in the user's frame. */
  private view: EditorView | undefined;
  private onProblems: (problems: string[]) => void = () => undefined;
  /** Delve's messages that wait while our breakpoints are set (after `initialized`). */
  private waiting: DapMessage[] | undefined;

  constructor(
    private readonly client: DapClient,
    /** Told of every request before Delve gets it (VS Code's, `fromEditor`, and ours). */
    private readonly onRequest: (command: string, fromEditor: boolean) => void = () => undefined,
  ) {
    client.on('message', (m) => {
      if (this.waiting) this.waiting.push(m);
      else if (m.type === 'event' && m.event === 'initialized' && this.view) {
        // Our breakpoints go to Delve before VS Code hears it may configure the session.
        this.waiting = [];
        void this.view
          .setInternal((command, args) => client.request(command, args))
          .then(
            (problems) => problems.length && this.onProblems(problems),
            (err: unknown) => this.onProblems([String(err)]),
          )
          .finally(() => {
            const waiting = this.waiting ?? [];
            this.waiting = undefined;
            for (const w of [m, ...waiting]) this.deliver(w);
          });
      } else this.deliver(m);
    });
  }

  /** Sets the Go debugger's breakpoints through Delve, out of VS Code's sight, when it starts. */
  useView(view: EditorView, onProblems: (problems: string[]) => void): void {
    this.view = view;
    this.onProblems = onProblems;
  }

  private deliver(raw: DapMessage): void {
    const m = this.view ? this.view.toEditor(raw) : raw;
    if (!m) return;
    // A stop goes to VS Code only once the reader has decided to hold it: a stop that is
    // stepped out of, or continued past (no breakpoint on its phase), never flashes there.
    if (m.type === 'event' && m.event === 'stopped' && this.stopListener)
      this.stopListener(m.body as unknown as Stopped, (held) =>
        this.sent.fire(
          (!this.view
            ? m
            : held
              ? this.view.heldStop(m, held.description, held.userFrame)
              : this.view.ownStop(m)) as vscode.DebugProtocolMessage,
        ),
      );
    else this.sent.fire(m as vscode.DebugProtocolMessage);
  }

  handleMessage(m: vscode.DebugProtocolMessage): void {
    const req = m as DapRequest;
    this.onRequest(req.command ?? '', true);
    this.client.relay(this.view && req.type === 'request' ? this.view.toAdapter(req) : m);
  }

  /** Our own request; VS Code is told first when it lets the program run again. */
  request<T>(command: string, args?: { threadId?: number }): Promise<T> {
    this.onRequest(command, false);
    if (RUN.has(command))
      this.sent.fire({
        seq: 0,
        type: 'event',
        event: 'continued',
        body: { threadId: args?.threadId ?? 0, allThreadsContinued: true },
      } as vscode.DebugProtocolMessage);
    return this.client.request<T>(command, args);
  }

  /** A line of the program's output, to the session's Debug Console. */
  output(line: string): void {
    this.sent.fire({
      seq: 0,
      type: 'event',
      event: 'output',
      body: { category: 'stdout', output: `${line}\n` },
    } as vscode.DebugProtocolMessage);
  }

  /** Each stop, with `show` to pass it on to VS Code (as a held phase, or as Delve sent it). */
  onStopped(listener: (s: Stopped, show: (held?: HeldStop) => void) => void): void {
    this.stopListener = listener;
  }

  /** Disposed with the relay (the session's end). */
  readonly disposables: Array<{ dispose(): void }> = [];

  dispose(): void {
    for (const d of this.disposables.splice(0)) d.dispose();
    this.client.close();
    this.sent.dispose();
  }
}

/** A phase stop held for the user: the words VS Code shows, and whether a user frame is there. */
interface HeldStop {
  description: string;
  userFrame: boolean;
}

/** Spawns `dlv dap` for each session of our type and relays VS Code to it. */
export class GoDebugAdapterFactory implements vscode.DebugAdapterDescriptorFactory {
  private readonly servers = new Map<string, DelveServer>();
  /** The controller hears of each session's relay and Delve (whose output holds the logs). */
  onRelay: (session: vscode.DebugSession, relay: DelveRelay, server: DelveServer) => void = () =>
    undefined;
  /** Called with each request's command before Delve gets it. */
  onRun: (command: string, fromEditor: boolean) => void = () => undefined;

  async createDebugAdapterDescriptor(
    session: vscode.DebugSession,
  ): Promise<vscode.DebugAdapterDescriptor> {
    const { findDelve, startDelve, DapClient, DELVE_MISSING } = await import('./engine');
    const dlv = await findDelve();
    if (!dlv) throw new Error(DELVE_MISSING);
    const cfg = session.configuration as unknown as { cwd: string; env?: Record<string, string> };
    const server = await startDelve(dlv, { cwd: cfg.cwd, env: { ...process.env, ...cfg.env } });
    this.servers.set(session.id, server);
    const relay = new DelveRelay(await DapClient.connect(server.port), (command, fromEditor) =>
      this.onRun(command, fromEditor),
    );
    this.onRelay(session, relay, server);
    return new vscode.DebugAdapterInlineImplementation(relay);
  }

  /** Ends Delve and the program (its process group) when the session ends. */
  async ended(session: vscode.DebugSession): Promise<void> {
    await this.servers.get(session.id)?.kill();
    this.servers.delete(session.id);
  }
}

export class GoDebugController implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<DebuggerState>();
  readonly factory = new GoDebugAdapterFactory();
  private session: vscode.DebugSession | undefined;
  private relay: DelveRelay | undefined;
  private reader: PhaseReader | undefined;
  private waiters: Array<(s: Stopped) => void> = [];
  private stops: GoStop[] = [];
  /** The charts' queue depth, sampled at each stop and each reconcile's end. */
  private depth: Array<[number, number]> = [];
  /** When the process stood stopped in Delve (left out of the latency chart). */
  private holds: Array<[number, number]> = [];
  private stoppedSince: number | undefined;
  /**
   * The process's reconciles as Run Go Operator sees them (its logs and the audit record): the
   * key's timeline and the findings.
   */
  private observed: ObservedManager | undefined;
  private findings: { views: FindingView[]; traceIds: Array<number | undefined> } = {
    views: [],
    traceIds: [],
  };
  private findingsAt = 0;
  private findingsTimer: NodeJS.Timeout | undefined;
  /** A finished reconcile picked in the timeline (or by a finding), shown instead of the stops. */
  private inspected: string | undefined;
  private offAudit: (() => void) | undefined;
  /** On a real target: its Events and objects, read while the manager runs (findings need them). */
  private remoteFindings: RemoteFindingsSource | undefined;
  private status: DebuggerState['status'] = 'idle';
  /** Ends the status bar's build item (build()), while one shows. */
  private building: (() => void) | undefined;
  /** Stops the `go build` of build(), while one runs. */
  private buildAbort: AbortController | undefined;
  /** The last debug build's compile errors. */
  private readonly problems = vscode.languages.createDiagnosticCollection(
    'reconcile-studio-go-debug',
  );
  /** Phase and outcome breakpoints, as the panel sets them (every phase until it does). */
  private breakpointsShown: DebuggerState['breakpoints'] = { phases: [...PHASES], outcomes: [] };
  /** A Step holds at the next phase whatever it is; the session's start at the user's Reconcile. */
  private stepping: Stepping = 'reconcile';
  /** Passes the latest stop on to VS Code (its Call Stack and Variables). */
  private showStop: ((held?: HeldStop) => void) | undefined;
  private message = 'No Go operator under the debugger.';
  private reconciler: string | null = null;
  private origin = Date.now();
  private thaw: (() => void) | undefined;
  private moduleDir: string | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private injector: FaultInjector | undefined;
  /** The session runs against a kubeconfig context through the recording proxy. */
  private onRealCluster = false;
  /** The kubeconfig context of a real target (what a hold's warnings name). */
  private realContext = '';
  /** What the manager's output said it holds or serves (a leader Lease, a webhook server). */
  private exposure: ManagerExposure = {};
  private readonly faults = new GoDebugFaults(() => this.injector);

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
    private readonly clusters: ClusterSession,
    private readonly target: ClusterTargetPicker,
    /** The background build-cache warm-up, stopped when this builds the manager. */
    private readonly warmup?: { cancel(): void },
    /** The Work Queue, which shows the build while it goes. */
    private readonly queue?: QueueTreeProvider,
  ) {
    this.factory.onRelay = (session, relay, server) => this.attach(session, relay, server);
    this.factory.onRun = (command, fromEditor) => {
      // A pause (the panel's or VS Code's) holds wherever the program stops.
      if (command === 'pause') this.stepping = true;
      if (!RUN.has(command)) return;
      // The program runs again: so does the cluster's clock.
      this.unfreeze();
      // VS Code's Continue runs to the next breakpoint; its line steps hold at any phase.
      if (fromEditor) this.stepping = command !== 'continue';
    };
    this.disposables.push(
      vscode.debug.registerDebugAdapterDescriptorFactory(GO_DEBUG_TYPE, this.factory),
      vscode.debug.onDidTerminateDebugSession((s) => {
        if (s.type !== GO_DEBUG_TYPE) return;
        void this.factory.ended(s);
        if (s === this.session) this.ended('The manager exited.');
      }),
    );
  }

  readonly onDidChangeState = (listener: (s: DebuggerState) => void): vscode.Disposable =>
    this.changed.event(listener);

  get active(): boolean {
    return this.session !== undefined;
  }

  state(): DebuggerState {
    const target = this.faults.target(this.stops, this.status === 'held');
    const id = reconcileIdOf(this.stops);
    const trace = id ? this.observed?.traceOf(id) : undefined;
    const state = goDebuggerState({
      status: this.status,
      message: this.message,
      reconciler: this.controllerName(),
      origin: this.origin,
      stops: this.stops,
      held: this.status === 'held',
      traces: this.observed?.all().flatMap((c) => c.traces) ?? [],
      inspected: this.inspected,
      breakpoints: this.breakpointsShown,
      findings: this.findings.views,
      ...(target ? { faultTarget: describeCall(target) } : {}),
      depth: this.depth,
      holds: this.holds,
      ...(this.stoppedSince !== undefined ? { stoppedSince: this.stoppedSince } : {}),
      ...(trace ? { reason: describeTrigger(trace.triggers[0]) } : {}),
      ...this.reconciledNow(),
    });
    // On a real cluster a hold stops the process while the cluster's clock runs on.
    if (this.status === 'held' && this.onRealCluster && this.stoppedSince !== undefined)
      state.hold = {
        since: this.stoppedSince,
        cluster: this.realContext,
        warnings: holdWarnings(this.exposure),
      };
    return this.moduleDir ? { ...state, source: { backend: 'go', module: this.moduleDir } } : state;
  }

  /** The stepped reconcile's object: its kind and key, and its copy in the embedded cluster. */
  private reconciledNow(): { reconciled?: Reconciled } {
    const name = controllerOf(this.stops);
    const kind = this.observed?.all().find((c) => c.name === name)?.kind;
    const key = reconciledKeyOf(this.stops, kind);
    if (!key) return {};
    const current = this.lookup(key.kind, key.namespace, key.name);
    return { reconciled: current ? { ...key, current } : key };
  }

  /** Reads an object of the embedded cluster, which is in this process: a real one is not. */
  private readonly lookup = (kind: string, namespace: string, name: string) => {
    const cluster = this.onRealCluster ? undefined : this.clusters.cluster;
    return cluster && objectByKind(cluster, kind, namespace, name);
  };

  /**
   * The controller as controller-runtime names it (its logs, metrics and the Work Queue say the
   * same): read at the stops, else from the manager's logs when it runs one controller, else the
   * reconciler's Go type until the manager has said.
   */
  private controllerName(): string | null {
    const read = this.stops.find((s) => s.phase.controller)?.phase.controller;
    if (read) return read;
    const logged = this.observed?.all().filter((c) => c.name) ?? [];
    return logged.length === 1 ? logged[0].name : this.reconciler;
  }

  restore(snapshot: DebuggerSnapshot): void {
    if (this.session) return;
    // Restart (handle) starts the module again from here.
    this.moduleDir = snapshot.source.module;
    this.reconciler = snapshot.reconciler;
    this.breakpointsShown = snapshot.breakpoints;
    this.status = 'stopped';
    this.message = restoredMessage(snapshot);
  }

  /**
   * Shows the Reconcile Debugger for this session in an editor group of its own, locked so that
   * the sources VS Code opens at each stop go beside it instead of covering it.
   */
  async showPanel(extensionUri: vscode.Uri): Promise<void> {
    const fresh = !DebuggerPanel.isShowing(this);
    DebuggerPanel.show(extensionUri, this, vscode.ViewColumn.Beside);
    if (fresh) await vscode.commands.executeCommand('workbench.action.lockEditorGroup');
  }

  /**
   * Starts the manager of the module holding `uri` under Delve, against the target of the status
   * bar: the embedded cluster, or a kubeconfig context through the recording proxy.
   */
  async start(uri?: vscode.Uri): Promise<void> {
    if (!vscode.workspace.isTrusted) throw new Error('Trust the workspace to debug its operator.');
    const moduleDir = await pickModule(uri);
    if (!moduleDir) return;
    await this.stop();
    const engine = await import('./engine');
    if (!(await engine.findDelve())) {
      const ok = await vscode.window.showWarningMessage(
        `${engine.DELVE_MISSING}.`,
        { modal: true },
        'Install Delve',
      );
      if (ok !== 'Install Delve') return;
      await installDelve(engine.DELVE_INSTALL);
    }
    // A Go this Delve cannot debug: said now, before the cluster or a build starts.
    const dlv = await engine.findDelve();
    const goProblem = dlv && (await engine.delveGoProblem(dlv));
    if (goProblem) {
      this.setStatus('error', goProblem);
      throw new Error(goProblem);
    }
    const cr = await engine.controllerRuntimeOf(moduleDir);
    const symbols = engine.resolvePhaseSymbols(cr.version, cr.dir);
    const reconcilers = await engine.findReconcileSymbols(moduleDir);
    if (reconcilers.length === 0) throw new Error(`No Reconcile method found in ${moduleDir}.`);
    const target = this.target.current;
    if (!(await this.target.confirmWrites(target))) return;
    this.onRealCluster = target.kind === 'context';
    this.realContext = target.kind === 'context' ? target.context : '';
    this.exposure = {};
    let server: OperatorEndpoint | undefined;
    let proxyFaults: FaultInjector | undefined;
    let reader: Promise<DiscoveringApiServer> | undefined;
    if (target.kind === 'context') {
      const proxy = await this.target.proxy(target);
      server = proxy;
      proxyFaults = proxy.faults;
      // Findings read the cluster's Events with the user's credentials, beside the proxy.
      reader = this.target.reader(target);
    } else {
      await this.clusters.startEmbedded();
      server = this.clusters.server;
    }
    if (!server) throw new Error('Debug Go Operator needs the fake cluster served over HTTPS.');
    server.addUser(GO_DEBUG_USER);
    // The served cluster's fault injector (the faults file's): "Fail the next call with…" adds to it.
    // Through the proxy, its own injector: the proxy answers the injected call.
    this.injector = proxyFaults ?? (await this.clusters.faults?.load());
    const kubeconfig = join(this.context.globalStorageUri.fsPath, 'go-debug.kubeconfig');
    writeKubeconfigFile(kubeconfig, server.kubeconfig('reconcile-studio', GO_DEBUG_USER));
    this.moduleDir = moduleDir;
    const observed = new engine.ObservedManager(GO_DEBUG_USER);
    this.observed = observed;
    this.offAudit = server.audit.subscribe((ev) => observed.onAudit(ev));
    if (reader && target.kind === 'context') {
      // A real target's Events are watched while this manager runs, in the namespaces it writes
      // to, once the connection is made (it does not hold the start: the record is read back).
      const since = server.audit.events().at(-1)?.seq ?? 0;
      const { context } = target;
      const audit = server.audit;
      reader.then(
        (api) => {
          if (this.observed !== observed || !this.offAudit) return;
          const remote = new engine.RemoteFindingsSource(api, {
            user: GO_DEBUG_USER,
            onProblem: (m) => this.log.warn(m),
          });
          remote.follow(audit, since);
          this.remoteFindings = remote;
          // An Event arrives after the reconcile whose write caused it, maybe while one is held.
          remote.onChange(() => this.refreshFindings(engine));
        },
        (err: unknown) =>
          this.log.warn(
            `Findings are left out: ${context} could not be read for them (${err instanceof Error ? err.message : String(err)})`,
          ),
      );
    }
    observed.onReconcileEnd(() => {
      this.sampleDepth();
      this.refreshFindings(engine);
    });
    this.reconciler = reconcilers[0].name.replace(/^.*\.\(\*(\w+)\)\.Reconcile$/, '$1');
    this.reader = new engine.PhaseReader(
      {
        request: (command, args) => this.relay!.request(command, args as { threadId?: number }),
        nextStop: () => new Promise((r) => this.waiters.push(r)),
      },
      {
        moduleDir,
        symbols,
        reconcilers,
        audit: server.audit,
        user: GO_DEBUG_USER,
        lookup: this.lookup,
      },
    );
    this.stops = [];
    this.depth = [];
    this.holds = [];
    this.stepping = 'reconcile';
    this.origin = Date.now();
    const binary = join(this.context.globalStorageUri.fsPath, 'go-debug-manager');
    if (!(await this.build(engine, moduleDir, binary))) return;
    this.setStatus('starting', `Starting ${reconcilers[0].name} under Delve…`);
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.file(moduleDir));
    const metricsPort = await engine.freePort();
    const started = await vscode.debug.startDebugging(folder, {
      type: GO_DEBUG_TYPE,
      name: 'Debug Go Operator',
      request: 'launch',
      // Built by us (build()), so the status bar can say what is being compiled: Delve's own
      // build (mode "debug") prints nothing until it is done.
      mode: 'exec',
      program: binary,
      cwd: moduleDir,
      // Leader election off: a held process would lose its Lease.
      args: engine.managerFlags(metricsPort),
      env: { KUBECONFIG: kubeconfig },
      // The Call Stack lists the program's goroutines, not the Go runtime's own.
      hideSystemGoroutines: true,
    });
    if (!started) {
      // No session to end: the context build() set for Stop goes with the run.
      void vscode.commands.executeCommand('setContext', 'reconcileStudio.goDebugRunning', false);
      this.cleanup();
      throw new Error('VS Code did not start the Go debug session.');
    }
  }

  async handle(msg: WebviewMessage): Promise<void> {
    const s = this.session;
    const relay = this.relay;
    if (msg.type === 'setBreakpoints') {
      this.breakpointsShown = { phases: msg.phases, outcomes: msg.outcomes };
      this.changed.fire(this.state());
      return;
    }
    if (msg.type === 'showSource') return this.showSource();
    if (msg.type === 'injectFault') {
      this.message = this.faults.inject(this.stops, this.status === 'held', msg.fault);
      this.changed.fire(this.state());
      return;
    }
    if (msg.type === 'inspect' || msg.type === 'openFinding') {
      const id =
        msg.type === 'inspect' ? msg.id : this.traceOfFinding(this.findings.traceIds[msg.index]);
      this.inspected = id;
      this.changed.fire(this.state());
      return;
    }
    if (!s || !relay || !this.reader) {
      if (msg.type === 'restart') await this.start(this.moduleUri());
      return;
    }
    const threadId = this.reader.threadId;
    switch (msg.type) {
      case 'step':
      case 'continue':
        // Every stop of ours is a phase: a Step is one continue that holds wherever it stops,
        // a Continue one that holds only where a breakpoint says so.
        this.stepping = msg.type === 'step';
        await relay.request('continue', { threadId });
        return;
      case 'pause':
        await relay.request('pause', { threadId });
        return;
      case 'restart':
        await vscode.debug.stopDebugging(s);
        await this.start(this.moduleUri());
        return;
      default:
        return;
    }
  }

  /** Opens the user's line for the phase shown now (beside the panel's locked group). */
  async showSource(): Promise<void> {
    const loc = this.state().current?.location;
    if (!loc) return;
    const doc = await vscode.workspace.openTextDocument(loc.file);
    const pos = new vscode.Position(loc.line - 1, 0);
    // In the group where VS Code shows the stops, not over the panel.
    const beside = vscode.window.visibleTextEditors[0]?.viewColumn ?? vscode.ViewColumn.Beside;
    await vscode.window.showTextDocument(doc, {
      viewColumn: beside,
      selection: new vscode.Range(pos, pos),
    });
  }

  private traceOfFinding(id: number | undefined): string | undefined {
    const traces = this.observed?.all().flatMap((c) => c.traces) ?? [];
    return traces.find((t) => t.id === id)?.reconcileID;
  }

  /** Findings re-read every trace and Event: at most once a second, the last one always. */
  private refreshFindings(engine: typeof import('./engine')): void {
    const wait = this.findingsAt + 1000 - performance.now();
    if (wait > 0) {
      this.findingsTimer ??= setTimeout(() => {
        this.findingsTimer = undefined;
        this.refreshFindings(engine);
      }, wait);
      return;
    }
    // The embedded cluster as it is now, or what is read of the real one.
    const cluster = this.onRealCluster ? undefined : this.clusters.cluster;
    const source = cluster ? engine.clusterFindingsSource(cluster) : this.remoteFindings;
    if (!this.observed || !source) return;
    this.findingsAt = performance.now();
    const shown = engine.shownFindings(engine.observedFindings(this.observed, source));
    this.findings = {
      views: shown.map((f) => engine.toFindingView(f, this.origin)),
      traceIds: shown.map(engine.firstTraceOf),
    };
    this.changed.fire(this.state());
  }

  private moduleUri(): vscode.Uri | undefined {
    return this.moduleDir ? vscode.Uri.file(this.moduleDir) : undefined;
  }

  async stop(): Promise<void> {
    // A build under way stops with its `go build`; start() then says so.
    this.buildAbort?.abort();
    this.buildAbort = undefined;
    const session = this.session;
    if (session) {
      const stopping = Date.now();
      await vscode.debug.stopDebugging(session);
      // Delve and the manager (their process groups) are gone before the log says it stopped.
      await this.factory.ended(session);
      this.log.info(
        `the Go operator under Delve in ${this.moduleDir} stopped (${((Date.now() - stopping) / 1000).toFixed(1)} s)`,
      );
    }
    this.cleanup();
  }

  private attach(session: vscode.DebugSession, relay: DelveRelay, server: DelveServer): void {
    this.session = session;
    this.relay = relay;
    // Stop Go Operator stops this one too.
    void vscode.commands.executeCommand('setContext', 'reconcileStudio.goDebugRunning', true);
    const reader = this.reader!;
    relay.useView(
      new EditorView(
        { functions: reader.functionBreakpoints(), lines: reader.lineBreakpoints() },
        this.moduleDir!,
      ),
      (problems) => {
        const message = `Delve could not set the phase breakpoints: ${problems.join('; ')}`;
        this.log.error(message);
        void this.stop().then(() => this.setStatus('error', message));
      },
    );
    // The manager's zap logs (Delve leaves the program's output on its own stdout and stderr):
    // read for the Work Queue and findings, and shown in the Debug Console, readable and folded.
    const log = new ManagerLog((lines) => lines.forEach((l) => relay.output(l)));
    relay.disposables.push(log);
    server.onLine((line) => {
      noteManagerLine(line, this.exposure);
      const e = parseZapLine(line);
      if (e) {
        this.observed?.onLog(e);
        log.entry(e);
      } else if (!DELVE_OWN_LINE.test(line)) log.plain(line);
    });
    relay.onStopped((stop, show) => this.stopped(stop, show));
  }

  private stopped(stop: Stopped, show: () => void): void {
    this.freeze();
    this.stoppedSince ??= Date.now();
    this.showStop = show;
    // A stop the reader asked for (it steps out of a write to see its answer).
    const waiter = this.waiters.shift();
    if (waiter) return waiter(stop);
    void this.reader!.phaseAt(stop).then(
      (phase) => {
        if (phase.phase === 'dequeue') this.stops = [];
        this.inspected = undefined;
        this.stops.push({ phase, at: Date.now() });
        this.sampleDepth();
        const why = holdReason(phase, this.runtimeBreakpoints(), this.stepping);
        if (!why) {
          this.setStatus('running', `Running (passed ${phase.summary})`);
          // (A failure is the process ending, which the session's end reports.)
          this.relay
            ?.request('continue', { threadId: this.reader!.threadId })
            .catch(() => undefined);
          return;
        }
        this.stepping = false;
        // The manager logged this reconcile's start before it stopped: its trace says why it
        // was enqueued.
        this.observed?.flush();
        this.showStop?.({
          description: `Held at ${phase.summary}`,
          userFrame: this.reader!.userFrame,
        });
        this.setStatus('held', `Held at ${phase.summary} (${why})`);
        DebuggerPanel.revealFor(this);
      },
      (err: unknown) => {
        // A stop of the user's own (a line breakpoint, a pause): VS Code shows it.
        this.showStop?.();
        this.setStatus('paused', err instanceof Error ? err.message : String(err));
      },
    );
  }

  private runtimeBreakpoints(): GoBreakpoints {
    const b = this.breakpointsShown;
    return { phases: b.phases, outcomes: b.outcomes.map((o) => OUTCOME_TO_RUNTIME[o]) };
  }

  private freeze(): void {
    // A real cluster's clock cannot be frozen (nor should the embedded one's be, then).
    if (this.onRealCluster) return;
    const clock = this.clusters.cluster?.clock;
    // The editor's cluster runs on a paced virtual clock (util/pacer): frozen, it stands still.
    if (clock instanceof VirtualClock) this.thaw ??= clock.freeze();
  }

  private unfreeze(): void {
    this.thaw?.();
    this.thaw = undefined;
    if (this.stoppedSince !== undefined)
      pushPoint(this.holds, [this.stoppedSince, Date.now()], MAX_HOLDS);
    this.stoppedSince = undefined;
  }

  /** The requests the manager's queues hold now, by its logs and the audit record. */
  private sampleDepth(): void {
    if (!this.observed) return;
    const now = Date.now();
    pushPoint(this.depth, [now, queueDepthOf(this.observed.snapshots(now))]);
  }

  private ended(message: string): void {
    this.cleanup();
    this.setStatus('stopped', message);
  }

  private cleanup(): void {
    this.unfreeze();
    // The timeline and findings stay on the panel; the process's record stops growing.
    this.observed?.flush();
    this.offAudit?.();
    this.offAudit = undefined;
    // The real cluster's Events are read only while the manager runs.
    this.remoteFindings?.dispose();
    this.remoteFindings = undefined;
    if (this.findingsTimer) clearTimeout(this.findingsTimer);
    this.findingsTimer = undefined;
    if (this.session)
      void vscode.commands.executeCommand('setContext', 'reconcileStudio.goDebugRunning', false);
    this.session = undefined;
    this.relay = undefined;
    this.waiters = [];
  }

  private setStatus(status: DebuggerState['status'], message: string): void {
    this.status = status;
    this.message = message;
    if (status !== 'starting') this.hideBuild();
    this.changed.fire(this.state());
  }

  /**
   * Builds the manager as Delve's debug mode would (optimisations and inlining off), with `-v` so
   * the status bar names the packages being compiled and the time taken; the item stays, saying
   * Delve is starting it, until the first status that is not `starting`, and a click stops the
   * run. False when the build failed (its errors in Problems) or was stopped.
   */
  private async build(
    engine: typeof import('./engine'),
    moduleDir: string,
    binary: string,
  ): Promise<boolean> {
    this.setStatus('starting', `Building ${moduleDir} for Delve…`);
    const progress = new engine.BuildProgress();
    const item = showBuildStatus(
      `Building the Go operator in ${moduleDir} for Delve and starting it. Click to stop.`,
      (elapsedMs) =>
        progress.current.done
          ? engine.describeDelveStart(progress.current, elapsedMs)
          : engine.describeBuild(progress.current, elapsedMs),
      this.queue,
    );
    this.building = () => item.dispose();
    // Stop Go Operator (the item's command) is enabled while the build runs.
    const running = (on: boolean) =>
      void vscode.commands.executeCommand('setContext', 'reconcileStudio.goDebugRunning', on);
    running(true);
    const abort = new AbortController();
    this.buildAbort = abort;
    this.problems.clear();
    this.warmup?.cancel();
    const built = await engine.goBuild({
      cwd: moduleDir,
      out: binary,
      flags: ['-v', `-gcflags=${engine.DELVE_GCFLAGS}`],
      signal: abort.signal,
      onLine: (line) => {
        if (progress.feed(line)) item.update();
      },
    });
    progress.finish();
    item.update();
    if (this.buildAbort === abort) this.buildAbort = undefined;
    if (!built.ok) running(false);
    if (built.aborted) {
      this.log.info(`the Go operator's build in ${moduleDir} was stopped`);
      this.setStatus('stopped', 'Stopped while the operator was building.');
      return false;
    }
    if (!built.ok) {
      showBuildProblems(this.problems, built.errors);
      const why = built.errors.length
        ? `${plural(built.errors.length, 'error')}; see Problems`
        : built.output.trim().split('\n').slice(-3).join(' ');
      const message = `The Go operator did not build (${why}).`;
      this.log.error(`go build in ${moduleDir} failed:\n${built.output.trim()}`);
      this.setStatus('error', message);
      void vscode.window.showErrorMessage(
        `Reconcile Studio: ${message} The cluster keeps running.`,
      );
      return false;
    }
    return true;
  }

  private hideBuild(): void {
    this.building?.();
    this.building = undefined;
  }

  dispose(): void {
    this.hideBuild();
    this.problems.dispose();
    void this.stop();
    for (const d of this.disposables.splice(0)) d.dispose();
    this.changed.dispose();
  }
}

/** `go install` of the pinned Delve, with the user's consent already given. */
async function installDelve(command: string): Promise<void> {
  const { execFile } = await import('node:child_process');
  const [cmd, ...args] = command.split(' ');
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `Installing Delve: ${command}` },
    () =>
      new Promise<void>((resolve, reject) =>
        execFile(cmd, args, (err, _out, stderr) =>
          err ? reject(new Error(`${command} failed: ${stderr || err.message}`)) : resolve(),
        ),
      ),
  );
}
