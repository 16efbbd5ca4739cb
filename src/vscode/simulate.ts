/**
 * "Reconcile Studio: Simulate": runs the reconciler against a fresh fake cluster with the
 * workspace's manifests on the virtual clock (ten minutes of controller time in moments) and opens
 * the same readable report `reconcile-studio simulate` prints.
 */
import * as vscode from 'vscode';
import { workspaceManifestPaths } from './manifestpaths';
import type { Logger } from './output';
import { readSettings } from './settings';

export async function runSimulation(
  module: vscode.Uri,
  log: Logger,
  durationMs = 10 * 60_000,
): Promise<void> {
  if (!vscode.workspace.isTrusted)
    throw new Error('This workspace is not trusted: its reconcilers do not run.');
  const { simulate, formatReport } = await import('./engine');
  const manifests = await workspaceManifestPaths(readSettings().cluster.manifests);
  const result = await vscode.window.withProgress(
    {
      location: vscode.ProgressLocation.Notification,
      title: `Simulating ${vscode.workspace.asRelativePath(module)} for ${durationMs / 60_000} minutes of controller time`,
    },
    () =>
      simulate({
        reconciler: module.fsPath,
        manifests,
        durationMs,
        podReadyDelayMs: readSettings().cluster.podReadyDelayMs,
        hangTimeoutMs: readSettings().runtime.hangTimeoutMs,
      }),
  );
  log.info(
    `simulation: ${result.report.reconciles.length} reconciles, ${result.findings.length} findings`,
  );
  const doc = await vscode.workspace.openTextDocument({
    content: formatReport(result),
    language: 'plaintext',
  });
  await vscode.window.showTextDocument(doc, { preview: false });
}
