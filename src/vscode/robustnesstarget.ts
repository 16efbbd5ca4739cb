/**
 * What "Run Robustness Report" runs (model/reportruntime.ts decides the runtime): the module of
 * that runtime, asking which runtime with a quick pick when the workspace holds both and neither
 * the file in hand nor a running runtime says, then which module when there are several.
 */
import * as vscode from 'vscode';
import { goOperatorModules, pickModule } from './gooperator';
import { reportRuntime, RUNTIME_WORDS, type ReportRuntime } from './model/reportruntime';
import { findReconcilerModules, pickReconcilerModule } from './reconcilermodules';
import type { ReportTarget } from './robustness';

export async function chooseReportTarget(
  given: vscode.Uri | undefined,
  running: { typescript?: vscode.Uri; go: boolean },
): Promise<ReportTarget | undefined> {
  const doc = vscode.window.activeTextEditor?.document;
  const choice = await reportRuntime({
    ...(given ? { given: given.fsPath } : {}),
    ...(doc ? { active: { path: doc.uri.fsPath, languageId: doc.languageId } } : {}),
    ...(running.typescript ? { tsRunning: running.typescript.fsPath } : {}),
    goRunning: running.go,
    tsModules: async () => (await findReconcilerModules()).length,
    goOperatorModules: async () => (vscode.workspace.isTrusted ? goOperatorModules() : []),
  });
  const kind = choice.kind === 'ask' ? await askRuntime() : choice.kind;
  if (!kind) return undefined;
  const file = choice.kind === kind ? choice.file : undefined;
  if (kind === 'go') {
    const moduleDir = await pickModule(file ? vscode.Uri.file(file) : undefined);
    return moduleDir ? { kind: 'go', moduleDir } : undefined;
  }
  const module = await pickReconcilerModule(file ? vscode.Uri.file(file) : undefined);
  return module ? { kind: 'typescript', module } : undefined;
}

async function askRuntime(): Promise<ReportRuntime | undefined> {
  const pick = await vscode.window.showQuickPick(
    (['typescript', 'go'] as const).map((runtime) => ({
      label: runtime === 'go' ? 'Go operator' : 'TypeScript reconciler',
      detail: RUNTIME_WORDS[runtime],
      runtime,
    })),
    {
      title: 'Robustness report of which runtime?',
      placeHolder: 'The workspace holds a TypeScript reconciler and a Go operator',
    },
  );
  return pick?.runtime;
}
