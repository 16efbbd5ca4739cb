/**
 * "Reconcile Studio: Run Robustness Report": the workspace's TypeScript reconciler and manifests
 * (found as Simulate finds them) through `chaos` — a baseline, then one run per fault class — in a
 * worker thread (runtime/chaosthread.ts) behind a cancellable progress notification, shown in the
 * report panel. Each row links into the Reconcile Debugger, opened on that case's recorded run at
 * the reconcile where it went wrong. A Go operator's module goes through `chaos --go` the same way
 * (its own thread, its manager built once and run per case on the real clock; Cancel stops the
 * build or the manager running); its rows open the debugger on the reconciles the cluster and the
 * manager's logs recorded (observedcontroller.ts).
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import type { RobustnessView, RobustnessWebviewMessage } from '../protocol';
import type { ChaosRunRecord, ChaosThreadHooks, ChaosThreadResult } from '../runtime/chaosthread';
import { checkGoVersion, goVersion } from '../runtime/gotoolchain';
import { DebuggerPanel } from './debuggerpanel';
import { moduleManifestPaths, workspaceManifestPaths } from './manifestpaths';
import { FAULT_TITLES } from './model/faulttitles';
import { RUNTIME_WORDS } from './model/reportruntime';
import type { Logger } from './output';
import { RecordedRunBackend } from './recordedrunbackend';
import { RobustnessPanel } from './robustnesspanel';
import { readSettings } from './settings';

/** Controller time of each run, as `reconcile-studio chaos` runs it by default. */
const DURATION_MS = 2 * 60_000;

/** What the report runs: a TypeScript reconciler module, or a Go module's manager. */
export type ReportTarget =
  { kind: 'typescript'; module: vscode.Uri } | { kind: 'go'; moduleDir: string };

/** A report ready to start in its thread, and what the progress says before the first run ends. */
interface Job {
  rel: string;
  /** The runtime judged, as the panel says it. */
  runtime: string;
  first: string;
  /** Shown while it runs (the Go report's real clock). */
  note?: string;
  start(hooks: ChaosThreadHooks): Promise<ChaosThreadResult>;
}

export class RobustnessReport implements vscode.Disposable {
  /** The last report's runs, by fault (the baseline under null), for the debugger links. */
  private runs: ChaosRunRecord[] = [];
  private view: RobustnessView | undefined;
  private target: ReportTarget | undefined;
  private replay: RecordedRunBackend | undefined;
  private running = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
  ) {}

  async run(target: ReportTarget): Promise<void> {
    if (!vscode.workspace.isTrusted)
      throw new Error('This workspace is not trusted: its reconcilers do not run.');
    if (this.running) throw new Error('A robustness report is already running.');
    this.running = true;
    try {
      const job = target.kind === 'go' ? await this.goJob(target.moduleDir) : this.tsJob(target);
      this.target = target;
      await this.runReport(job);
    } finally {
      this.running = false;
    }
  }

  private tsJob({ module }: { module: vscode.Uri }): Job {
    return {
      rel: vscode.workspace.asRelativePath(module),
      runtime: RUNTIME_WORDS.typescript,
      first: 'baseline…',
      start: async (hooks) => {
        const { runChaosInThread } = await import('./engine');
        const manifests = await workspaceManifestPaths(readSettings().cluster.manifests);
        return runChaosInThread(
          {
            reconciler: module.fsPath,
            manifests,
            durationMs: DURATION_MS,
            podReadyDelayMs: readSettings().cluster.podReadyDelayMs,
            hangTimeoutMs: readSettings().runtime.hangTimeoutMs,
          },
          hooks,
        );
      },
    };
  }

  /** The Go module's report; refused up front, naming the Go release needed, when Go is missing. */
  private async goJob(moduleDir: string): Promise<Job> {
    const problem = checkGoVersion(await goVersion());
    if (problem) throw new Error(`The robustness report of a Go operator cannot run: ${problem}`);
    return {
      // A module at a workspace folder's root has no relative path: its folder's name.
      rel:
        vscode.workspace.getWorkspaceFolder(vscode.Uri.file(moduleDir))?.uri.fsPath === moduleDir
          ? basename(moduleDir)
          : vscode.workspace.asRelativePath(moduleDir),
      runtime: RUNTIME_WORDS.go,
      first: 'building the manager…',
      note: 'Real clock: each fault class runs the manager for a few seconds against a fresh served cluster.',
      start: async (hooks) => {
        const { runGoChaosInThread } = await import('./engine');
        const rel = readSettings().cluster.manifests;
        // kubebuilder keeps config/ in the module; the workspace's folders when the module has none.
        const manifests = moduleManifestPaths(moduleDir, rel);
        return runGoChaosInThread(
          {
            moduleDir,
            manifests: manifests.length ? manifests : await workspaceManifestPaths(rel),
          },
          hooks,
        );
      },
    };
  }

  private async runReport(job: Job): Promise<void> {
    const { ChaosCancelled, robustnessView } = await import('./engine');
    const { rel } = job;
    this.runs = [];
    this.show({
      status: 'running',
      message: `Running ${rel}…`,
      reconciler: rel,
      runtime: job.runtime,
      ...(job.note ? { note: job.note } : {}),
      baseline: null,
      rows: [],
    });
    try {
      const { report, runs } = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `Robustness report of ${rel}`,
          cancellable: true,
        },
        (progress, token) => {
          const ac = new AbortController();
          token.onCancellationRequested(() => ac.abort());
          progress.report({ message: job.first });
          return job.start({
            signal: ac.signal,
            onRun: (fault, done, total) =>
              progress.report({
                increment: 100 / total,
                message: `${fault === null ? 'baseline' : (FAULT_TITLES[fault] ?? fault)} done (${done} of ${total})`,
              }),
          });
        },
      );
      this.runs = runs;
      const view = robustnessView(report, runs, rel);
      this.log.info(`robustness report of ${rel} (${job.runtime}): ${view.message}`);
      this.show(view);
    } catch (err) {
      const cancelled = err instanceof ChaosCancelled;
      const message = err instanceof Error ? err.message : String(err);
      this.show({
        status: cancelled ? 'cancelled' : 'error',
        message: cancelled ? message : `The report of ${rel} failed: ${message}`,
        reconciler: rel,
        runtime: job.runtime,
        baseline: null,
        rows: [],
      });
      if (!cancelled) throw err;
    }
  }

  private show(view: RobustnessView): void {
    this.view = view;
    RobustnessPanel.show(this.extensionUri, view, (msg) => this.handle(msg));
  }

  private async handle(msg: RobustnessWebviewMessage): Promise<void> {
    if (msg.type === 'rerun' && this.target) await this.run(this.target);
    if (msg.type === 'openInDebugger') await this.openInDebugger(msg.fault);
  }

  /** The Reconcile Debugger on `fault`'s recorded run, at the reconcile where it went wrong. */
  async openInDebugger(fault: string): Promise<void> {
    const run = this.runs.find((r) => r.fault === fault);
    const row = this.view?.rows.find((r) => r.fault === fault);
    if (!run || !row) throw new Error(`No recorded run of ${fault}: run the report again.`);
    const { RecordedRunModel } = await import('./engine');
    const model = new RecordedRunModel(
      run.traces,
      run.findings,
      this.view?.reconciler ?? '',
      `Robustness report, ${row.title}`,
      row.wentWrong?.reconcileID,
    );
    this.replay?.dispose();
    this.replay = new RecordedRunBackend(model);
    DebuggerPanel.show(this.extensionUri, this.replay, vscode.ViewColumn.Beside);
  }

  dispose(): void {
    this.replay?.dispose();
  }
}
