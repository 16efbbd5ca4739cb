import * as vscode from 'vscode';
import type { Logger } from './output';

/**
 * Workspace Trust: in an untrusted workspace nothing from the workspace runs (reconcilers are not
 * loaded); static analysis and manifests still work. The views say so through a context key.
 */
export function watchTrust(context: vscode.ExtensionContext, log: Logger): void {
  const set = () =>
    vscode.commands.executeCommand(
      'setContext',
      'reconcileStudio.untrusted',
      !vscode.workspace.isTrusted,
    );
  void set();
  if (!vscode.workspace.isTrusted)
    log.info('workspace not trusted: reconcilers will not run (static analysis only)');
  context.subscriptions.push(
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      log.info('workspace trusted: reconcilers can run');
      void set();
    }),
  );
}
