/**
 * Hosts the robustness report webview: one panel, the same CSP'd page as the debugger's, messages
 * validated on arrival, and the whole view re-sent whenever the webview (re)loads.
 */
import * as vscode from 'vscode';
import {
  parseRobustnessMessage,
  type RobustnessHostMessage,
  type RobustnessView,
  type RobustnessWebviewMessage,
} from '../protocol';
import { webviewHtml } from './webviewhtml';

export class RobustnessPanel implements vscode.Disposable {
  static readonly viewType = 'reconcileStudio.robustnessReport';
  private static current: RobustnessPanel | undefined;
  private readonly disposables: vscode.Disposable[] = [];
  private view: RobustnessView;

  /** Shows the panel (created once) with `view`; `onMessage` handles what the user asks for. */
  static show(
    extensionUri: vscode.Uri,
    view: RobustnessView,
    onMessage: (msg: RobustnessWebviewMessage) => unknown,
  ): RobustnessPanel {
    const current = RobustnessPanel.current;
    if (current) {
      current.onMessage = onMessage;
      current.update(view);
      current.panel.reveal(undefined, true);
      return current;
    }
    const root = vscode.Uri.joinPath(extensionUri, 'dist', 'webviews');
    const panel = vscode.window.createWebviewPanel(
      RobustnessPanel.viewType,
      'Robustness Report',
      vscode.ViewColumn.Active,
      { enableScripts: true, localResourceRoots: [root] },
    );
    RobustnessPanel.current = new RobustnessPanel(panel, root, view, onMessage);
    return RobustnessPanel.current;
  }

  private constructor(
    private readonly panel: vscode.WebviewPanel,
    root: vscode.Uri,
    view: RobustnessView,
    private onMessage: (msg: RobustnessWebviewMessage) => unknown,
  ) {
    this.view = view;
    panel.iconPath = vscode.Uri.joinPath(root, '..', '..', 'media', 'reconcile-studio.svg');
    panel.webview.html = webviewHtml(panel.webview, root, {
      bundle: 'robustness',
      title: 'Robustness Report',
    });
    this.disposables.push(
      panel.webview.onDidReceiveMessage((raw) => {
        const msg = parseRobustnessMessage(raw);
        if (!msg) return;
        if (msg.type === 'ready') return this.post();
        void Promise.resolve()
          .then(() => this.onMessage(msg))
          .catch((err: unknown) =>
            vscode.window.showErrorMessage(
              `Robustness Report: ${err instanceof Error ? err.message : String(err)}`,
            ),
          );
      }),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  update(view: RobustnessView): void {
    this.view = view;
    this.post();
  }

  private post(): void {
    const msg: RobustnessHostMessage = { type: 'report', view: this.view };
    void this.panel.webview.postMessage(msg);
  }

  dispose(): void {
    if (RobustnessPanel.current === this) RobustnessPanel.current = undefined;
    for (const d of this.disposables.splice(0)) d.dispose();
    this.panel.dispose();
  }
}
