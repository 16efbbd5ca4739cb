/**
 * Runs a workspace reconciler module with the runtime's Manager — against the embedded fake
 * cluster, or a kubeconfig context the user allowed writes to — and is the backend of the Reconcile Debugger and the Work Queue view. The module runs in a
 * worker thread (a hang or an endless loop is stopped and reported, never the extension host's
 * problem), is re-loaded when saved, and only runs in a trusted workspace.
 */
import * as vscode from 'vscode';
import type { FaultInjector } from '../cluster/faults';
import type { ApiServer } from '../runtime/apiserver';
import type { TypeRef } from '../cluster/apimachinery/types';
import type { DebuggerSnapshot, DebuggerState, WebviewMessage } from '../protocol';
import type { LoadedReconciler } from '../runtime/loader';
import type { Manager } from '../runtime/manager';
import type { ClusterSession } from './clustersession';
import type { DebuggerBackend } from './debuggerpanel';
import type { DebuggerModel, EventSource } from './model/debuggermodel';
import { adaptSnapshot } from './model/queuetree';
import type { Logger } from './output';
import type { QueueTreeProvider } from './queuetree';
import { restoredMessage } from './model/restoredsession';
import { readSettings } from './settings';

interface Running {
  uri: vscode.Uri;
  loaded: LoadedReconciler;
  manager: Manager;
  model: DebuggerModel;
  forType: TypeRef;
  startedAt: number;
  /** A reconcile ended since findings were last computed (they are computed at most once a second). */
  findingsDirty: boolean;
  findingsAt: number;
  disposables: vscode.Disposable[];
}

export class ReconcileSession implements DebuggerBackend, vscode.Disposable {
  private running: Running | undefined;
  private readonly stateChanged = new vscode.EventEmitter<DebuggerState>();
  private readonly queueChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeQueue = this.queueChanged.event;
  private pushTimer: NodeJS.Timeout | undefined;
  private tickTimer: NodeJS.Timeout | undefined;
  private findingsTimer: NodeJS.Timeout | undefined;
  private idleModel: DebuggerState | undefined;
  /** The session a panel restored after a window reload showed; Restart runs it again. */
  private restored: DebuggerSnapshot | undefined;

  constructor(
    private readonly log: Logger,
    private readonly clusters: ClusterSession,
    private readonly queueTree: QueueTreeProvider,
  ) {}

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  get module(): vscode.Uri | undefined {
    return this.running?.uri;
  }

  /** Loads the module and starts it on the current cluster; `hold` stops at the first phase. */
  async run(uri: vscode.Uri, opts: { hold: boolean }): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      throw new Error(
        'This workspace is not trusted: Reconcile Studio does not run its reconcilers. Trust the workspace to run them.',
      );
    }
    await this.stop();
    const file = uri.fsPath;
    this.log.info(`loading reconciler ${file}`);
    // Bundling the module and starting the cluster take seconds: the panel says so meanwhile
    // (not the idle hint to run the command that is running).
    this.idleModel = {
      ...this.state(),
      status: 'starting',
      message: `Starting ${vscode.workspace.asRelativePath(uri)}: bundling it and starting the cluster…`,
    };
    this.stateChanged.fire(this.idleModel);
    // The runtime is loaded on first use, not at activation.
    const {
      loadReconciler,
      Manager,
      KEPT_TRACES,
      DebuggerModel,
      eventsOf,
      NO_EVENTS,
      FaultInjector,
      FaultyApiServer,
      WebhookApiServer,
    } = await import('./engine');
    // Against the cluster the views show: a kubeconfig context the user allowed writes to, or the
    // embedded fake cluster (started on demand).
    const source = this.clusters.current;
    let api: ApiServer;
    let events: EventSource;
    let injector: FaultInjector | undefined;
    if (source?.remoteApi) {
      if (source.readOnly) {
        throw new Error(
          `The context "${source.name}" is read-only in Reconcile Studio, and a reconciler writes. Turn on reconcileStudio.cluster.allowWrites and connect again, or start the fake cluster.`,
        );
      }
      api = await source.remoteApi();
      events = NO_EVENTS;
    } else {
      const cluster = await this.clusters.startEmbedded();
      // The workspace's faults apply to the reconciler's calls as to any client's.
      // The debugger's "Fail the next call with…" adds its one-shot rules to the same injector.
      injector = (await this.clusters.faults?.load()) ?? new FaultInjector([]);
      // Its writes meet the cluster's admission webhooks, as a Go operator's served writes do
      // (the debugger shows the calls under each write).
      api = new FaultyApiServer(new WebhookApiServer(cluster), injector);
      events = eventsOf(cluster);
    }
    let loaded: LoadedReconciler;
    try {
      loaded = await loadReconciler(file, {
        isolate: true,
        hangTimeoutMs: readSettings().runtime.hangTimeoutMs,
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.idleModel = {
        ...this.state(),
        status: 'error',
        message: `Could not load ${vscode.workspace.asRelativePath(uri)}: ${message}`,
      };
      this.stateChanged.fire(this.idleModel);
      throw err;
    }
    // Loaded: what an earlier failure or a restored panel said is over.
    this.idleModel = undefined;
    const manager = new Manager({ api, hangTimeoutMs: 10_000, maxTraces: KEPT_TRACES });
    const forType = loaded.definition.for;
    manager.addReconciler(loaded.definition, loaded.reconcile);
    const model = new DebuggerModel(manager, events, forType, vscode.workspace.asRelativePath(uri));
    if (injector) model.useFaults(injector);
    const running: Running = {
      uri,
      loaded,
      manager,
      model,
      forType,
      startedAt: manager.clock.now(),
      findingsDirty: false,
      findingsAt: 0,
      disposables: [],
    };
    this.running = running;
    this.wire(running);
    model.setBreakpoints([], []);
    if (opts.hold && readSettings().debugger.breakOnStart) manager.stepper?.pause();
    manager.start();
    model.status = opts.hold ? 'paused' : 'running';
    model.message = opts.hold ? 'Waiting for the first request…' : 'Running';
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.reconcilerRunning', true);
    this.publish();
    this.log.info(
      `reconciler ${forType.kind} controller started${opts.hold ? ' (held at its first phase)' : ''}`,
    );
  }

  private wire(r: Running): void {
    const { manager, model } = r;
    const offs = [
      manager.on('held', (h) => {
        model.onHeld(h);
        this.publish(true);
      }),
      manager.on('resumed', () => {
        model.onResumed();
        this.publish();
      }),
      manager.on('queueChange', () => {
        model.onQueueChange(
          manager.clock.now(),
          manager.controllers.reduce((n, c) => n + c.queue.len(), 0),
        );
        this.publish();
      }),
      manager.on('reconcileStart', (t) => model.onReconcileStart(t)),
      manager.on('phase', () => this.publish()),
      manager.on('reconcileEnd', (t) => {
        model.onReconcileEnd(t);
        if (t.error)
          this.log.warn(
            `reconcile ${t.key} failed: ${t.error.message}${t.error.location ? ` (${t.error.location})` : ''}`,
          );
        r.findingsDirty = true;
        this.publish();
      }),
      manager.on('log', (l) =>
        l.level === 'error'
          ? this.log.error(`[${l.controller}] ${l.msg}${l.error ? `: ${l.error}` : ''}`)
          : this.log.debug(`[${l.controller}] ${l.msg}`),
      ),
      manager.on('hotLoop', (h) => {
        this.log.warn(
          `hot loop on ${h.key}: ${h.reconciles} reconciles (${h.reason})${h.suspended ? '; paused' : ''}`,
        );
        const message = `Reconcile Studio: ${h.key} is in a hot loop (${h.reconciles} reconciles caused by its own writes).${h.suspended ? ' Its processing is paused.' : ''}`;
        const actions = h.suspended ? ['Show in Debugger', 'Resume'] : ['Show in Debugger'];
        void vscode.window.showWarningMessage(message, ...actions).then((choice) => {
          if (choice === 'Resume')
            manager.controllers.forEach((c) => c.isSuspended(h.key) && c.resume(h.key));
          if (choice === 'Show in Debugger')
            void vscode.commands.executeCommand('reconcileStudio.openDebugger');
        });
      }),
    ];
    r.disposables.push({
      dispose: () => offs.forEach((off) => typeof off === 'function' && off()),
    });
    // Re-run on save of the module.
    r.disposables.push(
      vscode.workspace.onDidSaveTextDocument(async (doc) => {
        if (doc.uri.toString() !== r.uri.toString()) return;
        try {
          await r.loaded.reload();
          this.log.info(`reloaded ${doc.uri.fsPath}`);
          for (const obj of manager.cache.list(r.forType).items) {
            manager.controllers[0]?.enqueue({
              namespace: obj.metadata.namespace ?? '',
              name: obj.metadata.name!,
            });
          }
        } catch (err) {
          void vscode.window.showErrorMessage(
            `Reconcile Studio: reload failed: ${err instanceof Error ? err.message : String(err)}`,
          );
        }
      }),
    );
    // The Work Queue's "time left" counts down even when nothing changes.
    this.tickTimer = setInterval(() => this.publishQueue(), 1000);
  }

  /** Coalesces updates: the webview and tree get at most ~10 per second (immediately when held). */
  private publish(now = false): void {
    if (now) {
      this.flush();
      return;
    }
    this.pushTimer ??= setTimeout(() => this.flush(), 100);
  }

  private flush(): void {
    if (this.pushTimer) clearTimeout(this.pushTimer);
    this.pushTimer = undefined;
    this.refreshFindings();
    this.stateChanged.fire(this.state());
    this.publishQueue();
  }

  /**
   * Findings re-analyze every trace and the cluster's Events: worth it once a second while
   * reconciles keep ending (a hot loop ends hundreds), not after each one on the extension host.
   */
  private refreshFindings(): void {
    const r = this.running;
    if (!r?.findingsDirty) return;
    const wait = r.findingsAt + 1000 - performance.now();
    if (wait > 0) {
      this.findingsTimer ??= setTimeout(() => {
        this.findingsTimer = undefined;
        this.flush();
      }, wait);
      return;
    }
    r.findingsDirty = false;
    r.findingsAt = performance.now();
    r.model.refreshFindings(r.manager.clock.now() - r.startedAt);
  }

  private publishQueue(): void {
    const r = this.running;
    if (!r) return;
    for (const s of r.manager.queueSnapshots()) this.queueTree.model.update(adaptSnapshot(s));
    this.queueTree.refresh();
    this.queueChanged.fire();
  }

  queueDepth(): number {
    return this.queueTree.model.depth();
  }

  // ---- DebuggerBackend

  state(): DebuggerState {
    const r = this.running;
    if (r) {
      return {
        ...r.model.state(),
        source: { backend: 'typescript', module: r.uri.toString() },
      };
    }
    return (
      this.idleModel ?? {
        status: 'idle',
        message: vscode.workspace.isTrusted
          ? 'No reconciler is running. Run "Reconcile Studio: Open Reconcile Debugger" in a workspace with a reconciler module.'
          : 'No reconciler is running: this workspace is not trusted, so its reconcilers do not run. Trust it (Manage Workspace Trust) to step through them.',
        reconciler: null,
        origin: 0,
        now: 0,
        current: null,
        history: [],
        breakpoints: { phases: [], outcomes: [] },
        charts: { runMs: 0, queueDepth: [], latencyMs: [], reconcilesPerKey: [] },
        findings: [],
      }
    );
  }

  restore(snapshot: DebuggerSnapshot): void {
    if (this.running) return;
    this.restored = snapshot;
    this.idleModel = {
      ...this.state(),
      status: 'stopped',
      message: restoredMessage(snapshot),
      reconciler: snapshot.reconciler,
      breakpoints: snapshot.breakpoints,
      source: snapshot.source,
    };
  }

  /** Starts again the session a restored panel showed, with the breakpoints it had. */
  private async runRestored(snapshot: DebuggerSnapshot): Promise<void> {
    await this.run(vscode.Uri.parse(snapshot.source.module), { hold: true });
    this.restored = undefined;
    const { phases, outcomes } = snapshot.breakpoints;
    this.running?.model.setBreakpoints(phases, outcomes);
  }

  onDidChangeState(listener: (s: DebuggerState) => void): vscode.Disposable {
    return this.stateChanged.event(listener);
  }

  async handle(msg: WebviewMessage): Promise<void> {
    const r = this.running;
    const stepper = r?.manager.stepper;
    switch (msg.type) {
      case 'step':
        stepper?.step();
        break;
      case 'continue':
        stepper?.continue();
        break;
      case 'pause':
        stepper?.pause();
        if (r) {
          r.model.status = 'paused';
          r.model.message = 'Pausing at the next phase…';
        }
        break;
      case 'restart':
        if (r) await this.run(r.uri, { hold: true });
        else if (this.restored) await this.runRestored(this.restored);
        break;
      case 'setBreakpoints':
        r?.model.setBreakpoints(msg.phases, msg.outcomes);
        break;
      case 'inspect':
        r?.model.inspect(msg.id);
        break;
      case 'openFinding':
        r?.model.openFinding(msg.index);
        break;
      case 'injectFault':
        if (r) {
          r.model.injectFault(msg.fault);
          this.log.info(`debugger: injected ${msg.fault} into ${r.model.reconciler}'s next call`);
        }
        break;
      case 'ready':
        break;
    }
    this.publish(true);
  }

  // ---- Work Queue actions

  /** Adds the request to the queue now (as a watch event would). */
  reconcileNow(namespace: string, name: string): void {
    this.requireRunning().manager.controllers[0]?.enqueue({ namespace, name });
  }

  forget(key: string): void {
    const c = this.requireRunning().manager.controllers[0];
    c?.queue.forget(key);
    this.publishQueue();
  }

  /** Holds the next reconcile of this key at its first phase. */
  stepInto(key: string): void {
    const r = this.requireRunning();
    r.manager.stepper?.setBreakpoints({ phases: ['dequeue'], requests: [key] });
    const [namespace, name] = key.includes('/') ? key.split('/') : ['', key];
    r.manager.controllers[0]?.enqueue({ namespace: namespace!, name: name! });
  }

  private requireRunning(): Running {
    if (!this.running) throw new Error('No reconciler is running.');
    return this.running;
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    if (this.tickTimer) clearInterval(this.tickTimer);
    if (this.findingsTimer) clearTimeout(this.findingsTimer);
    this.findingsTimer = undefined;
    r.disposables.forEach((d) => d.dispose());
    await r.manager.stop();
    await r.loaded.dispose();
    this.queueTree.model.clear();
    this.queueTree.refresh();
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.reconcilerRunning', false);
    this.stateChanged.fire(this.state());
  }

  dispose(): void {
    void this.stop();
    this.stateChanged.dispose();
    this.queueChanged.dispose();
  }
}
