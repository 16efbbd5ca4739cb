/**
 * The workspace's `.reconcile-studio/faults.yaml`: read into one FaultInjector that the embedded
 * cluster's server and the in-process runtime share, and read again whenever the file is created,
 * changed or deleted. A bad file goes to Problems with its line and injects nothing until fixed.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { FaultInjector } from '../cluster/faults';
import type { Logger } from './output';

export const FAULTS_FILE = join('.reconcile-studio', 'faults.yaml');

export class WorkspaceFaults implements vscode.Disposable {
  private injector: FaultInjector | undefined;
  private readonly problems =
    vscode.languages.createDiagnosticCollection('reconcile-studio-faults');
  private readonly watcher = vscode.workspace.createFileSystemWatcher(
    '**/.reconcile-studio/faults.yaml',
  );

  constructor(private readonly log: Logger) {
    const reload = () => void this.reload();
    this.watcher.onDidCreate(reload);
    this.watcher.onDidChange(reload);
    this.watcher.onDidDelete(reload);
  }

  /** The shared injector, loaded from the file on first use. */
  async load(): Promise<FaultInjector> {
    if (!this.injector) {
      const { FaultInjector } = await import('./engine');
      this.injector = new FaultInjector([]);
      await this.reload();
    }
    return this.injector;
  }

  private async reload(): Promise<void> {
    const injector = this.injector;
    if (!injector) return; // nothing uses faults yet: read when the cluster starts
    const { parseFaults, FaultsFileError } = await import('./engine');
    this.problems.clear();
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      const file = join(folder.uri.fsPath, FAULTS_FILE);
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        continue; // no faults file in this folder
      }
      try {
        const rules = parseFaults(text, file);
        injector.reload(rules);
        this.log.info(`injecting ${rules.length} fault(s) from ${file}`);
      } catch (err) {
        injector.reload([]);
        const line = err instanceof FaultsFileError ? Math.max(0, err.line - 1) : 0;
        const message = err instanceof FaultsFileError ? err.detail : String(err);
        const d = new vscode.Diagnostic(
          new vscode.Range(line, 0, line, 1000),
          message,
          vscode.DiagnosticSeverity.Error,
        );
        d.source = 'reconcile-studio';
        this.problems.set(vscode.Uri.file(file), [d]);
        this.log.warn(`${file}:${line + 1}: ${message}; no faults injected until it is fixed`);
      }
      return;
    }
    injector.reload([]);
  }

  dispose(): void {
    this.watcher.dispose();
    this.problems.dispose();
  }
}
