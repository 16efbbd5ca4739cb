/**
 * Live YAML of a cluster object as a read-only virtual document (`reconcile-studio:` URIs) that
 * updates as the object changes, plus "edit and apply": an editable copy whose Apply command sends
 * it to the cluster (the fake one, or a real one the user opted into writing).
 */
import * as vscode from 'vscode';
import { stringify } from 'yaml';
import type { KubeObject, TypeRef } from '../cluster/apimachinery/types';
import type { ClusterSession } from './clustersession';
import { applyYamlText } from './model/applyyaml';
import type { YamlProblems } from './yamlproblems';

export const SCHEME = 'reconcile-studio';

export function liveUri(obj: KubeObject): vscode.Uri {
  const ns = obj.metadata.namespace ?? '_cluster';
  const query = new URLSearchParams({ apiVersion: obj.apiVersion, kind: obj.kind }).toString();
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/${ns}/${obj.kind}/${obj.metadata.name}.yaml`,
    query,
  });
}

function parseUri(uri: vscode.Uri): { type: TypeRef; namespace: string | undefined; name: string } {
  const q = new URLSearchParams(uri.query);
  const [, ns, , file] = uri.path.split('/');
  return {
    type: { apiVersion: q.get('apiVersion') ?? 'v1', kind: q.get('kind') ?? '' },
    namespace: ns === '_cluster' ? undefined : ns,
    name: (file ?? '').replace(/\.yaml$/, ''),
  };
}

/** Hides the bookkeeping a person rarely edits (managedFields), as `kubectl get -o yaml` users expect. */
export function toYaml(obj: KubeObject): string {
  const copy = structuredClone(obj);
  delete copy.metadata.managedFields;
  return stringify(copy, { lineWidth: 0 });
}

export class LiveYamlProvider implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private readonly open = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly session: ClusterSession) {
    this.disposables.push(
      vscode.workspace.onDidCloseTextDocument((d) => this.open.delete(d.uri.toString())),
    );
  }

  /** Called for every watch event: refreshes the documents showing that object. */
  objectChanged(obj: KubeObject): void {
    const uri = liveUri(obj);
    if (this.open.has(uri.toString())) this.changed.fire(uri);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    this.open.add(uri.toString());
    const source = this.session.current;
    if (!source) return '# No cluster is running.\n';
    const { type, namespace, name } = parseUri(uri);
    try {
      return toYaml(await source.get(type, namespace, name));
    } catch (err) {
      return `# ${type.kind} ${namespace ? namespace + '/' : ''}${name}: ${err instanceof Error ? err.message : String(err)}\n`;
    }
  }

  dispose(): void {
    this.changed.dispose();
    for (const d of this.disposables) d.dispose();
  }
}

/**
 * The editable copy's document: untitled (nothing is written unless the user saves it, and then
 * where they choose), named after the object — `webapp-default-shop.yaml` — so its tab says what
 * it is. The name has no `/`: an untitled path would be a file VS Code saves to without asking.
 */
export function editUri(obj: KubeObject): vscode.Uri {
  const ns = obj.metadata.namespace ? `${obj.metadata.namespace}-` : '';
  return vscode.Uri.from({
    scheme: 'untitled',
    path: `${obj.kind.toLowerCase()}-${ns}${obj.metadata.name}.yaml`,
  });
}

/** Opens an editable copy of the object's YAML; "Reconcile Studio: Apply YAML to Cluster" sends it back. */
export async function editObject(obj: KubeObject): Promise<void> {
  const uri = editUri(obj);
  const doc = await vscode.workspace.openTextDocument(uri);
  // A copy already open keeps the user's edits; a new one gets the object as it is now.
  if (doc.getText() === '') {
    const edit = new vscode.WorkspaceEdit();
    edit.insert(uri, new vscode.Position(0, 0), toYaml(obj));
    await vscode.workspace.applyEdit(edit);
  }
  await vscode.window.showTextDocument(
    doc.languageId === 'yaml' ? doc : await vscode.languages.setTextDocumentLanguage(doc, 'yaml'),
  );
}

/**
 * Apply YAML to Cluster: every document of `doc`, each as `kubectl apply --server-side`. What the
 * cluster refuses goes on its lines (Problems) with a short notification that counts it; the
 * document keeps the user's text either way.
 */
export async function applyEditorYaml(
  session: ClusterSession,
  doc: vscode.TextDocument,
  problems: YamlProblems,
): Promise<void> {
  const source = session.current;
  if (!source) throw new Error('No cluster is running. Start the fake cluster first.');
  const outcome = await applyYamlText(source, doc.getText());
  const placed = [...outcome.syntax, ...outcome.refused.flatMap((r) => r.problems)];
  problems.showRefusal(doc, placed);
  if (placed.length === 0) {
    void vscode.window.showInformationMessage(
      `Applied ${outcome.applied.join(', ') || 'nothing'}.`,
    );
    return;
  }
  const count = `${placed.length} problem${placed.length === 1 ? '' : 's'}`;
  const what = outcome.syntax.length
    ? `Nothing applied: the YAML has ${count}`
    : `${outcome.applied.length ? `Applied ${outcome.applied.join(', ')}; t` : 'T'}he cluster refused ${outcome.refused.map((r) => r.object).join(', ')}: ${count}`;
  void vscode.window
    .showErrorMessage(
      `Reconcile Studio: ${what}, on their lines in the Problems panel.`,
      'Show Problems',
    )
    .then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.actions.view.problems');
    });
}
