/**
 * "Run Go Operator": the workspace's controller-runtime manager run against the embedded fake
 * cluster — or a context of the user's kubeconfig through the recording proxy, as the status-bar
 * target says (clustertarget.ts) — with a kubeconfig (and so a user) of its own. Its output goes to an output channel,
 * build errors to Problems, its controllers to the Work Queue view (from its logs, /metrics and
 * the cluster's audit record of its requests), findings to the Work Queue too. Saving a .go file
 * of its module restarts it. The process management lives in src/runtime (goprocess.ts and
 * friends); this file is the VS Code glue.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import * as vscode from 'vscode';
import type { Cluster } from '../cluster/cluster';
import type { Finding } from '../runtime/findings';
import { GO_OPERATOR_USER, type GoManagerProcess, type ManagerExit } from '../runtime/goprocess';
import { checkGoVersion, goVersion } from '../runtime/gotoolchain';
import type { ObservedManager } from '../runtime/observedcontroller';
import type {
  FindingsSource,
  observedFindings as observedFindingsFn,
} from '../runtime/observedfindings';
import type { ClusterSession } from './clustersession';
import type { ClusterTargetPicker, OperatorEndpoint } from './clustertarget';
import type { DiscoveringApiServer } from '../runtime/remotefindings';
import { GO_OPERATOR_LENSES, goOperatorLensOffsets } from './model/golenses';
import { ManagerLog } from './model/managerlog';
import { plural } from './model/timeformat';
import { describeEvidence } from './model/findingevidence';
import { adaptSnapshot } from './model/queuetree';
import type { Logger } from './output';
import type { QueueTreeProvider } from './queuetree';
import { readSettings } from './settings';
import { showBuildProblems, showBuildStatus } from './buildstatus';
import { DebuggerPanel } from './debuggerpanel';
import { ObservedRunBackend } from './observedrunbackend';
import type { ReconcileTrace } from '../runtime/trace';

/** How often /metrics is scraped and the Work Queue redrawn. */
const POLL_MS = 500;
/** Findings re-read every trace and Event: at most once a second. */
const FINDINGS_MS = 1000;
/** A save restarts the manager after this quiet period (Save All saves many files at once). */
const RESTART_DEBOUNCE_MS = 300;

interface Running {
  moduleDir: string;
  process: GoManagerProcess;
  observed: ObservedManager;
  /**
   * What findings read of the cluster: the embedded one, or the real target's Events and objects
   * read while the manager runs (none when that cluster could not be reached for them).
   */
  findingsSource: FindingsSource | undefined;
  observedFindings: typeof observedFindingsFn;
  findings: Finding[];
  findingsAt: number;
  /** When the manager started (wall ms): findings' evidence gives its times from then. */
  startedAt: number;
  reported: Set<string>;
  disposables: Array<() => void>;
  timer: NodeJS.Timeout;
}

export class GoOperatorSession implements vscode.Disposable {
  private running: Running | undefined;
  private readonly output = vscode.window.createOutputChannel('Reconcile Studio: Go Operator');
  private readonly problems = vscode.languages.createDiagnosticCollection('reconcile-studio-go');
  private restartTimer: NodeJS.Timeout | undefined;
  private readonly saves: vscode.Disposable;
  /** The Reconcile Debugger on the running manager's reconciles, once opened, and its run. */
  private debuggerView: { backend: ObservedRunBackend; run: Running } | undefined;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
    private readonly clusters: ClusterSession,
    private readonly queueTree: QueueTreeProvider,
    private readonly target: ClusterTargetPicker,
    /** The background build-cache warm-up, stopped when this builds the manager. */
    private readonly warmup?: { cancel(): void },
  ) {
    this.saves = vscode.workspace.onDidSaveTextDocument((doc) => this.onSave(doc));
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Builds and runs the manager of the module holding `uri` (or the workspace's only one). */
  async run(uri?: vscode.Uri): Promise<void> {
    if (!vscode.workspace.isTrusted) {
      throw new Error(
        'This workspace is not trusted: Reconcile Studio does not run its operators. Trust the workspace to run them.',
      );
    }
    const moduleDir = await pickModule(uri);
    if (!moduleDir) return;
    const problem = checkGoVersion(await goVersion());
    if (problem) {
      void vscode.window.showErrorMessage(`Reconcile Studio: ${problem}`);
      return;
    }
    const target = this.target.current;
    if (!(await this.target.confirmWrites(target))) return;
    await this.stop();
    let cluster: Cluster | undefined;
    let server: OperatorEndpoint | undefined;
    let reader: Promise<DiscoveringApiServer> | undefined;
    if (target.kind === 'embedded') {
      cluster = await this.clusters.startEmbedded();
      server = this.clusters.server;
    } else {
      server = await this.target.proxy(target);
      // Findings read the cluster's Events with the user's credentials, beside the proxy.
      reader = this.target.reader(target);
    }
    if (!server) {
      throw new Error(
        'Run Go Operator needs the fake cluster served over HTTPS: turn on reconcileStudio.cluster.serve and restart the cluster.',
      );
    }
    // The runtime is loaded on first use, not at activation.
    const {
      GoManagerProcess,
      ObservedManager,
      observedFindings,
      clusterFindingsSource,
      RemoteFindingsSource,
      freePort,
      writeKubeconfigFile,
      BuildProgress,
      describeBuild,
      commandLine,
    } = await import('./engine');
    // A token of its own, so the cluster's audit record tells the operator's requests apart.
    server.addUser(GO_OPERATOR_USER);
    const kubeconfig = join(this.context.globalStorageUri.fsPath, 'go-operator.kubeconfig');
    writeKubeconfigFile(kubeconfig, server.kubeconfig('reconcile-studio', GO_OPERATOR_USER));
    const command = readSettings().go.runCommand;
    const metricsPort = await freePort();
    this.warmup?.cancel();
    const proc = new GoManagerProcess({ command, cwd: moduleDir, kubeconfig, metricsPort });
    // A first build takes minutes: the status bar shows it going (packages, time) until the
    // manager speaks; clicking it stops the run.
    const build = new BuildProgress();
    const building = showBuildStatus(
      `Building and starting the Go operator in ${moduleDir}. Click to stop.`,
      (elapsedMs) => describeBuild(build.current, elapsedMs),
      this.queueTree,
    );
    const buildOver = (): void => building.dispose();
    const observed = new ObservedManager(GO_OPERATOR_USER);
    // The record from here on is this run's (the proxy outlives runs).
    const since = server.audit.events().at(-1)?.seq ?? 0;
    const r: Running = {
      moduleDir,
      process: proc,
      observed,
      findingsSource: cluster ? clusterFindingsSource(cluster) : undefined,
      observedFindings,
      findings: [],
      findingsAt: 0,
      startedAt: Date.now(),
      reported: new Set(),
      disposables: [],
      timer: setInterval(() => void this.poll(r), POLL_MS),
    };
    this.running = r;
    if (reader && target.kind === 'context') {
      // A real target's Events are watched while this manager runs, in the namespaces it writes
      // to, once the connection is made (it does not hold the start: the record is read back).
      const context = target.context;
      const audit = server.audit;
      reader.then(
        (api) => {
          if (this.running !== r) return;
          const remote = new RemoteFindingsSource(api, {
            user: GO_OPERATOR_USER,
            onProblem: (m) => this.log.warn(m),
          });
          remote.follow(audit, since);
          r.disposables.push(() => remote.dispose());
          r.findingsSource = remote;
        },
        (err: unknown) =>
          this.log.warn(
            `Findings are left out: ${context} could not be read for them (${err instanceof Error ? err.message : String(err)})`,
          ),
      );
    }
    // A hot loop logs the same lines dozens of times a second: each shows once a window, then
    // how many more there were.
    const log = new ManagerLog((lines) => lines.forEach((l) => this.output.appendLine(l)));
    r.disposables.push(
      server.audit.subscribe((ev) => observed.onAudit(ev)),
      proc.on('line', (l) => {
        if (!build.feed(l.text) && build.current.done) buildOver();
        if (!l.text.startsWith('{')) log.plain(l.text);
      }),
      buildOver,
      proc.on('log', (e) => {
        log.entry(e);
        observed.onLog(e);
      }),
      () => log.dispose(),
      proc.on('exit', (x) => void this.onExit(r, x)),
    );
    this.problems.clear();
    this.output.clear();
    // The whole command as it runs, the flags it is given included.
    this.output.appendLine(
      `$ ${commandLine(command, metricsPort)}  (in ${moduleDir}, KUBECONFIG=${kubeconfig})`,
    );
    this.output.show(true);
    const shown = this.debuggerView && DebuggerPanel.isShowing(this.debuggerView.backend);
    await proc.start();
    if (shown) await this.showDebugger(this.context.extensionUri);
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.goOperatorRunning', true);
    this.log.info(
      `Go operator started: ${command} in ${moduleDir}, against ${target.kind === 'embedded' ? 'the embedded cluster' : `${target.context} (through the recording proxy)`}`,
    );
  }

  /**
   * Opens the Reconcile Debugger on the running manager: its reconciles as they finish, each with
   * its API calls and the webhook calls its writes made (model/observedrun.ts). A restart (a
   * saved .go file) shows the new run's.
   */
  async showDebugger(extensionUri: vscode.Uri): Promise<void> {
    const r = this.running;
    if (!r) throw new Error('No Go operator is running: run one with Run Go Operator first.');
    if (this.debuggerView?.run !== r) {
      const { ObservedRunModel } = await import('./engine');
      this.debuggerView?.backend.dispose();
      const model = new ObservedRunModel(
        {
          traces: () => tracesOf(r),
          findings: () => r.findings,
          running: () => this.running === r,
        },
        basename(r.moduleDir),
        r.startedAt,
      );
      const backend = new ObservedRunBackend(model, () => versionOf(r, this.running === r));
      this.debuggerView = { backend, run: r };
    }
    DebuggerPanel.show(extensionUri, this.debuggerView.backend, vscode.ViewColumn.Beside);
  }

  private async poll(r: Running): Promise<void> {
    if (this.running !== r) return;
    try {
      r.observed.onMetrics(await r.process.scrape(POLL_MS));
    } catch {
      // Not serving yet (still building) or already gone: the logs still drive the view.
    }
    if (this.running !== r) return;
    this.refreshFindings(r);
    const now = Date.now();
    for (const s of r.observed.snapshots(now)) {
      this.queueTree.model.update({
        ...adaptSnapshot(s),
        depth: s.depth,
        findings: r.findings
          .filter((f) => f.controller === s.controller && f.kind !== 'bottleneck')
          .map((f) => ({
            kind: f.kind,
            key: f.request ? `${f.request.namespace}/${f.request.name}` : '',
            message: f.message,
            evidence: describeEvidence(f, r.startedAt),
          })),
      });
    }
    this.queueTree.refresh();
    if (this.debuggerView?.run === r) this.debuggerView.backend.refresh();
  }

  /** Findings from what the cluster saw the process do: its calls, the Events on what it owns. */
  private refreshFindings(r: Running): void {
    if (!r.findingsSource || performance.now() - r.findingsAt < FINDINGS_MS) return;
    r.findingsAt = performance.now();
    r.findings = r.observedFindings(r.observed, r.findingsSource);
    for (const f of r.findings) {
      if (f.severity !== 'error') continue;
      const id = `${f.kind}|${f.request?.namespace}/${f.request?.name}`;
      if (r.reported.has(id)) continue;
      r.reported.add(id);
      this.log.warn(`[${f.controller}] ${f.kind}: ${f.message}`);
    }
  }

  private async onExit(r: Running, x: ManagerExit): Promise<void> {
    if (x.stopped) return;
    await this.stop();
    const tail = x.lastLines.slice(-10).join('\n');
    if (x.buildErrors.length) {
      showBuildProblems(this.problems, x.buildErrors);
      void vscode.window.showErrorMessage(
        `Reconcile Studio: the Go operator did not build (${plural(x.buildErrors.length, 'error')}; see Problems). The cluster keeps running.`,
      );
      return;
    }
    const how = x.panic ?? (x.signal ? `killed by ${x.signal}` : `exit code ${x.code}`);
    this.output.appendLine(`\n[Reconcile Studio] the manager in ${r.moduleDir} exited: ${how}`);
    const choice = await vscode.window.showErrorMessage(
      `Reconcile Studio: the Go operator exited (${how}). The cluster and its objects are intact. Last lines:\n${tail}`,
      'Show Output',
      'Run Again',
    );
    if (choice === 'Show Output') this.output.show();
    if (choice === 'Run Again') await this.run(vscode.Uri.file(r.moduleDir));
  }

  /** A save of a .go file in the running module restarts the manager (rebuilds it). */
  private onSave(doc: vscode.TextDocument): void {
    const r = this.running;
    if (!r || !doc.uri.fsPath.endsWith('.go')) return;
    const rel = relative(r.moduleDir, doc.uri.fsPath);
    if (rel.startsWith('..') || rel.startsWith(sep)) return;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      this.log.info(`${rel} saved: restarting the Go operator`);
      this.run(vscode.Uri.file(r.moduleDir)).catch((err: unknown) =>
        this.log.error(`restart failed: ${err instanceof Error ? err.message : String(err)}`),
      );
    }, RESTART_DEBOUNCE_MS);
  }

  async stop(): Promise<void> {
    const r = this.running;
    if (!r) return;
    this.running = undefined;
    clearInterval(r.timer);
    r.disposables.forEach((d) => d());
    const stopping = Date.now();
    await r.process.stop();
    this.output.appendLine(
      `[Reconcile Studio] the Go operator in ${r.moduleDir} stopped (${((Date.now() - stopping) / 1000).toFixed(1)} s)`,
    );
    r.observed.flush();
    // The panel keeps the stopped run's reconciles, and says it stopped.
    if (this.debuggerView?.run === r) this.debuggerView.backend.refresh();
    for (const c of r.observed.all()) this.queueTree.model.remove(c.name);
    this.queueTree.refresh();
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.goOperatorRunning', false);
  }

  dispose(): void {
    void this.stop();
    this.debuggerView?.backend.dispose();
    this.saves.dispose();
    this.output.dispose();
    this.problems.dispose();
  }
}

/** The run's finished reconciles, every controller's, in the order they ended. */
function tracesOf(r: Running): ReconcileTrace[] {
  return r.observed
    .all()
    .flatMap((c) => c.traces)
    .sort((a, b) => (a.end ?? a.start) - (b.end ?? b.start));
}

/** What the debugger's view of the run depends on: its reconciles, their calls, findings, state. */
function versionOf(r: Running, running: boolean): string {
  const traces = r.observed.all().flatMap((c) => c.traces);
  // A call that arrives after its reconcile ended is added to it (observedcontroller's attachLate).
  const calls = traces.slice(-50).reduce((n, t) => n + t.calls.length, 0);
  const newest = r.observed.all().map((c) => c.traces.at(-1)?.reconcileID);
  return `${traces.length}|${newest.join()}|${calls}|${r.findings.length}|${running}`;
}

/** The Go module to run: the one holding `uri`, the workspace's only one, or the user's pick. */
/** The workspace's Go modules (their go.mod directories). */
export async function goModuleDirs(): Promise<string[]> {
  return (await vscode.workspace.findFiles('**/go.mod', '{**/vendor/**,**/testdata/**}', 50))
    .map((u) => dirname(u.fsPath))
    .sort();
}

/** The workspace's Go modules with a controller-runtime Reconcile (by the Go analysis). */
export async function goOperatorModules(): Promise<string[]> {
  const { findReconcileSymbols } = await import('./engine');
  const out: string[] = [];
  for (const dir of await goModuleDirs()) {
    const found = await findReconcileSymbols(dir).catch(() => []);
    if (found.length > 0) out.push(dir);
  }
  return out;
}

export async function pickModule(uri?: vscode.Uri): Promise<string | undefined> {
  if (uri) {
    let dir = uri.fsPath.endsWith('.go') ? dirname(uri.fsPath) : uri.fsPath;
    for (;;) {
      if (existsSync(join(dir, 'go.mod'))) return dir;
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
  }
  const mods = await goModuleDirs();
  if (mods.length <= 1) {
    if (!mods.length)
      void vscode.window.showInformationMessage(
        'Reconcile Studio: no Go module (go.mod) in this workspace to run.',
      );
    return mods[0];
  }
  const pick = await vscode.window.showQuickPick(
    mods.map((d) => ({ label: vscode.workspace.asRelativePath(d), dir: d })),
    { title: 'Which Go operator?', placeHolder: 'Pick the module whose manager to run' },
  );
  return pick?.dir;
}

/**
 * "Run Go Operator" and "Debug Go Operator" above a manager's `func main()` and each
 * controller-runtime `Reconcile`: the debug lens holds the manager first in that Reconcile.
 */
export class GoOperatorCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    return goOperatorLensOffsets(doc.getText()).flatMap((offset) => {
      const pos = doc.positionAt(offset);
      const range = new vscode.Range(pos, pos);
      return GO_OPERATOR_LENSES.map(
        ({ title, command }) =>
          new vscode.CodeLens(range, { title, command, arguments: [doc.uri] }),
      );
    });
  }
}
