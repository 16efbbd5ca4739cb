/**
 * What every editor panel does with its webview: the page (webviewHtml), the icon, and messages
 * validated on arrival. `ready` says the webview (re)loaded and is answered with the whole state,
 * so hiding or reloading it loses nothing; anything else goes to the panel's handler, whose
 * failure, thrown or rejected, is shown to the user under the panel's title.
 */
import * as vscode from 'vscode';
import { webviewHtml } from './webviewhtml';

export interface WebviewHandlers<M extends { type: string }> {
  /** Validates what the webview posted (protocol.ts); undefined drops it. */
  parse(raw: unknown): M | undefined;
  /** Sends the whole state, answering `ready`. */
  ready(): void;
  handle(msg: Exclude<M, { type: 'ready' }>): unknown;
}

/** Fills `panel` with the page of `page.bundle` and wires its messages; dispose to unwire. */
export function hostWebview<M extends { type: string }>(
  panel: vscode.WebviewPanel,
  root: vscode.Uri,
  page: { bundle: string; title: string },
  on: WebviewHandlers<M>,
): vscode.Disposable {
  panel.iconPath = vscode.Uri.joinPath(root, '..', '..', 'media', 'reconcile-studio.svg');
  panel.webview.html = webviewHtml(panel.webview, root, page);
  const fail = (err: unknown) =>
    void vscode.window.showErrorMessage(
      `${page.title}: ${err instanceof Error ? err.message : String(err)}`,
    );
  return panel.webview.onDidReceiveMessage((raw) => {
    const msg = on.parse(raw);
    if (!msg) return;
    if (msg.type === 'ready') return on.ready();
    try {
      // A generic union does not narrow on `type`: msg is not `ready` here.
      void Promise.resolve(on.handle(msg as Exclude<M, { type: 'ready' }>)).catch(fail);
    } catch (err) {
      fail(err);
    }
  });
}

/** Where the webview bundles are: the only folder a panel may load from. */
export function webviewRoot(extensionUri: vscode.Uri): vscode.Uri {
  return vscode.Uri.joinPath(extensionUri, 'dist', 'webviews');
}

export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return { enableScripts: true, localResourceRoots: [webviewRoot(extensionUri)] };
}
