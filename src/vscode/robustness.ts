/**
 * "Reconcile Studio: Run Robustness Report": the workspace's TypeScript reconciler and manifests
 * (found as Simulate finds them) through `chaos` — a baseline, then one run per fault class — in a
 * worker thread (runtime/chaosthread.ts) behind a cancellable progress notification, shown in the
 * report panel. Each row links into the Reconcile Debugger, opened on that case's recorded run at
 * the reconcile where it went wrong.
 */
import * as vscode from 'vscode';
import type { RobustnessView, RobustnessWebviewMessage } from '../protocol';
import type { ChaosRunRecord } from '../runtime/chaosthread';
import { DebuggerPanel } from './debuggerpanel';
import { workspaceManifestPaths } from './manifestpaths';
import { FAULT_TITLES } from './model/faulttitles';
import type { Logger } from './output';
import { RecordedRunBackend } from './recordedrunbackend';
import { RobustnessPanel } from './robustnesspanel';
import { readSettings } from './settings';

/** Controller time of each run, as `reconcile-studio chaos` runs it by default. */
const DURATION_MS = 2 * 60_000;

export class RobustnessReport implements vscode.Disposable {
  /** The last report's runs, by fault (the baseline under null), for the debugger links. */
  private runs: ChaosRunRecord[] = [];
  private view: RobustnessView | undefined;
  private module: vscode.Uri | undefined;
  private replay: RecordedRunBackend | undefined;
  private running = false;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly log: Logger,
  ) {}

  async run(module: vscode.Uri): Promise<void> {
    if (!vscode.workspace.isTrusted)
      throw new Error('This workspace is not trusted: its reconcilers do not run.');
    if (this.running) throw new Error('A robustness report is already running.');
    this.running = true;
    try {
      await this.runReport(module);
    } finally {
      this.running = false;
    }
  }

  private async runReport(module: vscode.Uri): Promise<void> {
    const { runChaosInThread, ChaosCancelled, robustnessView } = await import('./engine');
    const rel = vscode.workspace.asRelativePath(module);
    const manifests = await workspaceManifestPaths(readSettings().cluster.manifests);
    this.module = module;
    this.runs = [];
    this.show({
      status: 'running',
      message: `Running ${rel}…`,
      reconciler: rel,
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
          progress.report({ message: 'baseline…' });
          return runChaosInThread(
            {
              reconciler: module.fsPath,
              manifests,
              durationMs: DURATION_MS,
              podReadyDelayMs: readSettings().cluster.podReadyDelayMs,
              hangTimeoutMs: readSettings().runtime.hangTimeoutMs,
            },
            {
              signal: ac.signal,
              onRun: (fault, done, total) =>
                progress.report({
                  increment: 100 / total,
                  message: `${fault === null ? 'baseline' : (FAULT_TITLES[fault] ?? fault)} done (${done} of ${total})`,
                }),
            },
          );
        },
      );
      this.runs = runs;
      const view = robustnessView(report, runs, rel);
      this.log.info(`robustness report of ${rel}: ${view.message}`);
      this.show(view);
    } catch (err) {
      const cancelled = err instanceof ChaosCancelled;
      const message = err instanceof Error ? err.message : String(err);
      this.show({
        status: cancelled ? 'cancelled' : 'error',
        message: cancelled ? message : `The report of ${rel} failed: ${message}`,
        reconciler: rel,
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
    if (msg.type === 'rerun' && this.module) await this.run(this.module);
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
