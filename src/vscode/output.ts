import * as vscode from 'vscode';

/** The extension's output channel; a LogOutputChannel so users can pick the level. */
export type Logger = vscode.LogOutputChannel;

export function createLogger(context: vscode.ExtensionContext): Logger {
  const channel = vscode.window.createOutputChannel('Reconcile Studio', { log: true });
  context.subscriptions.push(channel);
  return channel;
}
