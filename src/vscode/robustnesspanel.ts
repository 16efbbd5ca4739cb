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
import { hostWebview, webviewOptions, webviewRoot } from './webviewpanel';

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
    const root = webviewRoot(extensionUri);
    const panel = vscode.window.createWebviewPanel(
      RobustnessPanel.viewType,
      'Robustness Report',
      vscode.ViewColumn.Active,
      webviewOptions(extensionUri),
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
    this.disposables.push(
      hostWebview(
        panel,
        root,
        { bundle: 'robustness', title: 'Robustness Report' },
        {
          parse: parseRobustnessMessage,
          ready: () => this.post(),
          handle: (msg) => this.onMessage(msg),
        },
      ),
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
