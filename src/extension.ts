/**
 * activate(): builds the objects of the VS Code layer and wires them together; nothing else.
 * Everything heavy (the cluster, the runtime, the analyzers) is created on first use.
 */
import * as vscode from 'vscode';
import { registerCommands } from './vscode/commands';
import { createLogger } from './vscode/output';

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = createLogger(context);
  registerCommands(context, log);
  log.info(`Reconcile Studio activated in ${(performance.now() - started).toFixed(1)} ms`);
}

export function deactivate(): void {
  // Disposables registered on the context are released by VS Code.
}
