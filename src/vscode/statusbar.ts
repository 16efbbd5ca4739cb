import * as vscode from 'vscode';

export interface StatusBarInfo {
  cluster: string | null;
  objects: number;
  queueDepth: number;
  readOnly: boolean;
}

/** One status-bar item: which cluster, how many objects, how deep the queue is. Click: the debugger. */
export class ClusterStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem(
    'reconcileStudio.status',
    vscode.StatusBarAlignment.Left,
    50,
  );

  constructor() {
    this.item.name = 'Reconcile Studio';
    this.item.command = 'reconcileStudio.openDebugger';
  }

  update(info: StatusBarInfo): void {
    if (!info.cluster) {
      this.item.hide();
      return;
    }
    const lock = info.readOnly ? ' $(lock)' : '';
    this.item.text = `$(server-environment) ${info.cluster}${lock} · ${info.objects} objects · queue ${info.queueDepth}`;
    this.item.tooltip = `Reconcile Studio: ${info.cluster}${info.readOnly ? ' (read-only)' : ''}\n${info.objects} objects, ${info.queueDepth} requests in the work queue\nClick to open the Reconcile Debugger`;
    this.item.show();
  }

  dispose(): void {
    this.item.dispose();
  }
}
