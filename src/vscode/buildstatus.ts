/**
 * The status bar's build item for Run Go Operator and Debug Go Operator: a spinner and what the
 * build is doing (packages compiled, time taken, the last package), redrawn each second so a
 * first build of minutes on a busy machine never looks like a hang; a click stops the run.
 */
import * as vscode from 'vscode';
import type { BuildError } from '../runtime/gotoolchain';
import type { QueueTreeProvider } from './queuetree';

export interface BuildStatusItem {
  /** Redraws now (after a line of progress), not only at the next second. */
  update(): void;
  /** Removes the item; later calls do nothing. */
  dispose(): void;
}

/**
 * Shows the item until disposed, and the same text atop the Work Queue (`queue`), which would
 * otherwise say no reconciler is running. `describe` gets the time since it was shown and says
 * the rest (`Building: 57 packages, 0:42 — sigs.k8s.io/controller-runtime/pkg/client`).
 */
export function showBuildStatus(
  tooltip: string,
  describe: (elapsedMs: number) => string,
  queue: QueueTreeProvider | undefined,
): BuildStatusItem {
  const item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  item.command = 'reconcileStudio.stopGoOperator';
  item.tooltip = tooltip;
  const started = Date.now();
  const show = (): void => {
    const text = describe(Date.now() - started);
    item.text = `$(sync~spin) ${text}`;
    queue?.model.setBuild({ text, tooltip });
    queue?.refresh();
  };
  show();
  item.show();
  const timer = setInterval(show, 1000);
  let over = false;
  return {
    update: () => {
      if (!over) show();
    },
    dispose: () => {
      if (over) return;
      over = true;
      clearInterval(timer);
      item.dispose();
      queue?.model.setBuild(undefined);
      queue?.refresh();
    },
  };
}

/** A failed build's compile errors in Problems, at their files and lines (source `go build`). */
export function showBuildProblems(
  problems: vscode.DiagnosticCollection,
  errors: readonly BuildError[],
): void {
  const byFile = new Map<string, vscode.Diagnostic[]>();
  for (const e of errors) {
    const pos = new vscode.Position(e.line - 1, e.column - 1);
    const d = new vscode.Diagnostic(
      new vscode.Range(pos, pos.translate(0, 1)),
      e.message,
      vscode.DiagnosticSeverity.Error,
    );
    d.source = 'go build';
    byFile.set(e.file, [...(byFile.get(e.file) ?? []), d]);
  }
  for (const [file, diags] of byFile) problems.set(vscode.Uri.file(file), diags);
}
