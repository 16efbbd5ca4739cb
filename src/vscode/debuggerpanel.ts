/**
 * Hosts the Reconcile Debugger webview: a strict CSP (nonce, no inline handlers, resources only
 * from dist/webviews), messages validated on arrival, and the whole state re-sent whenever the
 * webview (re)loads, so hiding the panel loses nothing. A window reload brings the panel back
 * through a WebviewPanelSerializer, from the snapshot the webview saved with `setState`.
 */
import * as vscode from 'vscode';
import {
  parseDebuggerSnapshot,
  parseWebviewMessage,
  type DebuggerSnapshot,
  type DebuggerState,
  type HostMessage,
  type WebviewMessage,
} from '../protocol';
import { hostWebview, webviewOptions, webviewRoot } from './webviewpanel';

export interface DebuggerBackend {
  state(): DebuggerState;
  onDidChangeState(listener: (state: DebuggerState) => void): vscode.Disposable;
  handle(msg: WebviewMessage): void | Promise<void>;
  /**
   * Takes over a panel restored after a window reload: the session it showed is gone (the
   * extension host restarted), so the backend says so and keeps what it needs to start it again.
   * A recorded run (a robustness report's case) has none: its snapshot names no source, and the
   * report is run again instead.
   */
  restore?(snapshot: DebuggerSnapshot): void;
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
    const panel = vscode.window.createWebviewPanel(
      DebuggerPanel.viewType,
      'Reconcile Debugger',
      column,
      {
        ...webviewOptions(extensionUri),
        // Kept alive while hidden behind an editor (a Go debug stop opens its source in this
        // group): coming back is instant and a Step's click-to-render is not a page reload.
        retainContextWhenHidden: true,
      },
    );
    DebuggerPanel.current = new DebuggerPanel(panel, extensionUri, backend);
    return DebuggerPanel.current;
  }

  /**
   * Brings panels back after a window reload (activation event `onWebviewPanel:<viewType>`).
   * `backendFor` picks the backend from the saved snapshot (absent when no session had run, or
   * the state was unreadable): the panel is never left blank.
   */
  static registerSerializer(
    extensionUri: vscode.Uri,
    backendFor: (snapshot: DebuggerSnapshot | undefined) => DebuggerBackend,
  ): vscode.Disposable {
    return vscode.window.registerWebviewPanelSerializer(DebuggerPanel.viewType, {
      deserializeWebviewPanel: async (panel, saved: unknown) => {
        const snapshot = parseDebuggerSnapshot(saved);
        const backend = backendFor(snapshot);
        if (snapshot) backend.restore?.(snapshot);
        // Options are set again: the extension's folder may have moved with an update.
        panel.webview.options = webviewOptions(extensionUri);
        DebuggerPanel.current?.dispose();
        DebuggerPanel.current = new DebuggerPanel(panel, extensionUri, backend);
      },
    });
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly backend: DebuggerBackend,
  ) {
    this.disposables.push(
      hostWebview(
        panel,
        webviewRoot(extensionUri),
        { bundle: 'debugger', title: 'Reconcile Debugger' },
        {
          parse: parseWebviewMessage,
          ready: () => this.post(backend.state()),
          handle: (msg) => backend.handle(msg),
        },
      ),
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
