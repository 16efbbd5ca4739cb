/**
 * Finding reconciler modules in the workspace (files named `*.reconciler.ts|js`, or any .ts/.js
 * under a `reconcilers/` folder) and letting the user pick one when there are several.
 */
import * as vscode from 'vscode';

// VS Code's globs do not nest braces, so the two naming conventions are searched separately.
export const RECONCILER_GLOBS = [
  '**/*.reconciler.{ts,js,mts,mjs}',
  '**/reconcilers/*.{ts,js,mts,mjs}',
];
const EXCLUDE = '{**/node_modules/**,**/dist/**,**/*.d.ts}';

export async function findReconcilerModules(): Promise<vscode.Uri[]> {
  const found = (
    await Promise.all(RECONCILER_GLOBS.map((g) => vscode.workspace.findFiles(g, EXCLUDE, 50)))
  ).flat();
  const unique = new Map(found.map((u) => [u.toString(), u]));
  return [...unique.values()].sort((a, b) => a.path.localeCompare(b.path));
}

/** The module to run: the given one, the only one, or the user's pick; undefined if none/cancelled. */
export async function pickReconcilerModule(given?: vscode.Uri): Promise<vscode.Uri | undefined> {
  if (given) return given;
  const active = vscode.window.activeTextEditor?.document.uri;
  const modules = await findReconcilerModules();
  if (active && modules.some((m) => m.toString() === active.toString())) return active;
  if (modules.length <= 1) {
    if (modules.length === 0) {
      void vscode.window.showInformationMessage(
        'Reconcile Studio: no reconciler module in this workspace. Name one `something.reconciler.ts` (see the sample operator).',
      );
    }
    return modules[0];
  }
  const pick = await vscode.window.showQuickPick(
    modules.map((uri) => ({ label: vscode.workspace.asRelativePath(uri), uri })),
    { title: 'Which reconciler?', placeHolder: 'Pick the reconciler module to run' },
  );
  return pick?.uri;
}

/** "Run | Debug | Simulate" above a reconciler module's `reconcile` method. */
export class ReconcilerCodeLensProvider implements vscode.CodeLensProvider {
  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    const text = doc.getText();
    const m = /^\s*(async\s+)?reconcile\s*\(|reconcile\s*:\s*(async\s*)?(function|\()/m.exec(text);
    if (!m || !/export\s+default|module\.exports/.test(text)) return [];
    const pos = doc.positionAt(m.index + m[0].length - m[0].trimStart().length);
    const range = new vscode.Range(pos, pos);
    return [
      new vscode.CodeLens(range, {
        title: 'Run',
        command: 'reconcileStudio.runReconciler',
        arguments: [doc.uri],
      }),
      new vscode.CodeLens(range, {
        title: 'Debug',
        command: 'reconcileStudio.openDebugger',
        arguments: [doc.uri],
      }),
      new vscode.CodeLens(range, {
        title: 'Simulate',
        command: 'reconcileStudio.simulate',
        arguments: [doc.uri],
      }),
    ];
  }
}
