import * as vscode from 'vscode';
import type { Logger } from './output';
import { openSample } from './sample';

export function registerCommands(context: vscode.ExtensionContext, log: Logger): void {
  const register = (id: string, fn: (...args: unknown[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  register('reconcileStudio.showOutput', () => log.show(true));
  register('reconcileStudio.openSample', () => openSample(context));
}
