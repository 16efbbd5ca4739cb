/**
 * Finding ⇄ LSP shapes. Kept apart from server.ts so the mapping is unit-tested without a
 * connection: diagnostics carry their fixes in `data`, and code actions read them back.
 */
import {
  CodeActionKind,
  DiagnosticSeverity,
  type CodeAction,
  type Diagnostic,
} from 'vscode-languageserver';
import { headline, type Finding, type Fix, type Severity } from './diagnostics';
import { ruleDocsUrl } from './rules';

export const SOURCE = 'reconcile-studio';

const LSP_SEVERITY: Record<Severity, DiagnosticSeverity> = {
  error: DiagnosticSeverity.Error,
  warning: DiagnosticSeverity.Warning,
  information: DiagnosticSeverity.Information,
  hint: DiagnosticSeverity.Hint,
};

export interface DiagnosticData {
  fixes: Fix[];
}

export function toDiagnostic(f: Finding): Diagnostic {
  const data: DiagnosticData = { fixes: f.fixes };
  return {
    range: f.range,
    severity: LSP_SEVERITY[f.severity],
    code: f.rule,
    codeDescription: { href: ruleDocsUrl(f.rule) },
    source: SOURCE,
    // The first sentence only: the rest is in the hover, beside the rule's page.
    message: headline(f.message),
    data,
  };
}

/**
 * Quick fixes for our diagnostics in a code-action request: each finding's own fixes, then a
 * suppression comment on the line above (indented like the line) for when the code is right.
 */
export function codeActions(
  uri: string,
  diagnostics: Diagnostic[],
  lineText: (line: number) => string,
): CodeAction[] {
  const out: CodeAction[] = [];
  for (const d of diagnostics) {
    if (d.source !== SOURCE || typeof d.code !== 'string') continue;
    const fixes = (d.data as DiagnosticData | undefined)?.fixes ?? [];
    fixes.forEach((fix, i) => {
      out.push({
        title: fix.title,
        kind: CodeActionKind.QuickFix,
        diagnostics: [d],
        isPreferred: i === 0,
        edit: { changes: { [uri]: fix.edits } },
      });
    });
    const line = d.range.start.line;
    const indent = /^[\t ]*/.exec(lineText(line))?.[0] ?? '';
    out.push({
      title: `Ignore ${d.code} on this line`,
      kind: CodeActionKind.QuickFix,
      diagnostics: [d],
      edit: {
        changes: {
          [uri]: [
            {
              range: { start: { line, character: 0 }, end: { line, character: 0 } },
              newText: `${indent}//reconcile-studio:ignore ${d.code} <reason>\n`,
            },
          ],
        },
      },
    });
  }
  return out;
}
