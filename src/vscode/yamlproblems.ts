/**
 * Problems of YAML documents of custom resources, on their lines: as the user types (checked by
 * the embedded cluster's own validation, `cluster/apiextensions/yamlvalidation.ts`, 300 ms after
 * the last keystroke), and what the cluster refused when Apply YAML sent the document (kept until
 * the document changes). Only publishes: the checking is in the core.
 */
import * as vscode from 'vscode';
import { parseAllDocuments } from 'yaml';
import { syntaxProblems, type YamlProblem } from '../cluster/apimachinery/yamlfields';
import type { ClusterSession } from './clustersession';
import { EmbeddedSource } from './embeddedsource';

const QUIET_MS = 300;
/** Larger documents are not checked as they are typed (generated bundles, not hand edits). */
const MAX_CHARS = 512 * 1024;

export class YamlProblems implements vscode.Disposable {
  private readonly collection =
    vscode.languages.createDiagnosticCollection('reconcile-studio-yaml');
  private readonly live = new Map<string, vscode.Diagnostic[]>();
  private readonly refused = new Map<string, vscode.Diagnostic[]>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly clusters: ClusterSession) {
    this.disposables.push(
      vscode.workspace.onDidOpenTextDocument((d) => this.schedule(d)),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.contentChanges.length === 0) return;
        // The refusal was about the text that was sent; its ranges no longer hold.
        this.refused.delete(e.document.uri.toString());
        this.schedule(e.document);
      }),
      vscode.workspace.onDidCloseTextDocument((d) => this.forget(d.uri)),
      // A cluster started, stopped or switched: other kinds are served, or none.
      clusters.onDidChange(() => vscode.workspace.textDocuments.forEach((d) => this.schedule(d))),
    );
    vscode.workspace.textDocuments.forEach((d) => this.schedule(d));
  }

  /** What the cluster refused of `doc` when it was applied; [] when it took it all. */
  showRefusal(doc: vscode.TextDocument, problems: YamlProblem[]): void {
    const key = doc.uri.toString();
    if (problems.length)
      this.refused.set(
        key,
        problems.map((p) => diagnostic(doc, p)),
      );
    else this.refused.delete(key);
    this.publish(doc.uri);
  }

  private schedule(doc: vscode.TextDocument): void {
    if (!checked(doc)) return;
    const key = doc.uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        // A document the check cannot judge shows no problems rather than stale ones.
        this.check(doc).catch(() => this.forget(doc.uri));
      }, QUIET_MS),
    );
  }

  private async check(doc: vscode.TextDocument): Promise<void> {
    if (doc.isClosed) return;
    const key = doc.uri.toString();
    const source = this.clusters.current;
    const cluster = source instanceof EmbeddedSource ? this.clusters.cluster : undefined;
    let problems: YamlProblem[] = [];
    if (!cluster && editCopy(doc))
      problems = parseAllDocuments(doc.getText()).flatMap(syntaxProblems);
    else if (cluster) {
      // Loaded already: the embedded cluster runs.
      const { validateResourceYaml } = await import('./engine');
      const result = validateResourceYaml(doc.getText(), cluster);
      // A workspace file of no served kind is not ours to judge (Helm templates, CI files).
      if (result.servedKinds || editCopy(doc)) problems = result.problems;
    }
    if (doc.isClosed) return;
    this.live.set(
      key,
      problems.map((p) => diagnostic(doc, p)),
    );
    this.publish(doc.uri);
  }

  private publish(uri: vscode.Uri): void {
    const key = uri.toString();
    const live = this.live.get(key) ?? [];
    // A refusal the live check already shows is said once.
    const seen = new Set(live.map((d) => `${d.range.start.line}:${d.message}`));
    const refused = (this.refused.get(key) ?? []).filter(
      (d) => !seen.has(`${d.range.start.line}:${d.message}`),
    );
    this.collection.set(uri, [...live, ...refused]);
  }

  private forget(uri: vscode.Uri): void {
    const key = uri.toString();
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    this.live.delete(key);
    this.refused.delete(key);
    this.collection.delete(uri);
  }

  dispose(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    for (const d of this.disposables) d.dispose();
    this.collection.dispose();
  }
}

/** YAML the user edits: files and untitled documents (not the read-only live views, not diffs). */
function checked(doc: vscode.TextDocument): boolean {
  return (
    doc.languageId === 'yaml' &&
    (doc.uri.scheme === 'file' || doc.uri.scheme === 'untitled') &&
    doc.getText().length <= MAX_CHARS
  );
}

/** Edit YAML's copies (and other untitled YAML): their syntax errors count before any kind is known. */
function editCopy(doc: vscode.TextDocument): boolean {
  return doc.uri.scheme === 'untitled';
}

function diagnostic(doc: vscode.TextDocument, p: YamlProblem): vscode.Diagnostic {
  const d = new vscode.Diagnostic(
    new vscode.Range(doc.positionAt(p.range.start), doc.positionAt(p.range.end)),
    p.message,
    p.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Error,
  );
  d.source = 'Reconcile Studio';
  return d;
}
