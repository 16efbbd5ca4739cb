import * as vscode from 'vscode';

/**
 * Copies the sample operator shipped in the VSIX into the extension's global storage (so the
 * user can edit it freely) and opens it in a new window, or in this one when no folder is open.
 */
export async function openSample(context: vscode.ExtensionContext): Promise<void> {
  const source = vscode.Uri.joinPath(context.extensionUri, 'samples', 'quota-operator');
  const target = vscode.Uri.joinPath(context.globalStorageUri, 'quota-operator');
  try {
    await vscode.workspace.fs.stat(target);
  } catch {
    await vscode.workspace.fs.copy(source, target, { overwrite: false });
  }
  const forceNewWindow = (vscode.workspace.workspaceFolders?.length ?? 0) > 0;
  await vscode.commands.executeCommand('vscode.openFolder', target, { forceNewWindow });
}
