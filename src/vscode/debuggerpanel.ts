/**
 * Hosts the Reconcile Debugger webview: a strict CSP (nonce, no inline handlers, resources only
 * from dist/webviews), messages validated on arrival, and the whole state re-sent whenever the
 * webview (re)loads, so hiding the panel loses nothing.
 */
import * as vscode from 'vscode';
import {
  parseWebviewMessage,
  type DebuggerState,
  type HostMessage,
  type WebviewMessage,
} from '../protocol';
import { webviewHtml } from './webviewhtml';

export interface DebuggerBackend {
  state(): DebuggerState;
  onDidChangeState(listener: (state: DebuggerState) => void): vscode.Disposable;
  handle(msg: WebviewMessage): void | Promise<void>;
}

export class DebuggerPanel implements vscode.Disposable {
  static readonly viewType = 'reconcileStudio.debugger';
  private static current: DebuggerPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  /**
   * Brings the panel of `backend` back to the front without taking focus: a Go debug stop opens
   * its source in the same editor group, which would hide the panel the user steps from.
   */
  static isShowing(backend: DebuggerBackend): boolean {
    return DebuggerPanel.current?.backend === backend;
  }

  static revealFor(backend: DebuggerBackend): void {
    const current = DebuggerPanel.current;
    if (current?.backend === backend && !current.panel.visible)
      current.panel.reveal(undefined, true);
  }

  static show(
    extensionUri: vscode.Uri,
    backend: DebuggerBackend,
    column: vscode.ViewColumn = vscode.ViewColumn.Active,
  ): DebuggerPanel {
    // One panel; it shows one backend (a TypeScript reconcile or a Go operator under Delve).
    if (DebuggerPanel.current?.backend !== backend) DebuggerPanel.current?.dispose();
    if (DebuggerPanel.current) {
      DebuggerPanel.current.panel.reveal(column);
      return DebuggerPanel.current;
    }
    const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webviews');
    const panel = vscode.window.createWebviewPanel(
      DebuggerPanel.viewType,
      'Reconcile Debugger',
      column,
      {
        enableScripts: true,
        localResourceRoots: [root],
        // Kept alive while hidden behind an editor (a Go debug stop opens its source in this
        // group): coming back is instant and a Step's click-to-render is not a page reload.
        retainContextWhenHidden: true,
      },
    );
    DebuggerPanel.current = new DebuggerPanel(panel, root, backend);
    return DebuggerPanel.current;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    root: vscode.Uri,
    private readonly backend: DebuggerBackend,
  ) {
    panel.iconPath = vscode.Uri.joinPath(root, '..', '..', 'media', 'reconcile-studio.svg');
    panel.webview.html = webviewHtml(panel.webview, root, {
      bundle: 'debugger',
      title: 'Reconcile Debugger',
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => {
        const msg = parseWebviewMessage(raw);
        if (!msg) return;
        if (msg.type === 'ready') return this.post(backend.state());
        void Promise.resolve(backend.handle(msg)).catch((err: unknown) =>
          vscode.window.showErrorMessage(
            `Reconcile Debugger: ${err instanceof Error ? err.message : String(err)}`,
          ),
        );
      }),
      backend.onDidChangeState((s) => this.post(s)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  private post(state: DebuggerState): void {
    const msg: HostMessage = { type: 'state', state };
    void this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    DebuggerPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
