/**
 * activate(): builds the objects of the VS Code layer and wires them together; nothing else.
 * The fake cluster, the runtime and the language server start on first use, not here.
 */
import * as vscode from 'vscode';
import { ClusterSession } from './vscode/clustersession';
import { registerCommands } from './vscode/commands';
import { DebuggerPanel } from './vscode/debuggerpanel';
import { GoDebugController } from './vscode/godebug';
import { GoOperatorCodeLensProvider, GoOperatorSession } from './vscode/gooperator';
import { GoBuildWarmup } from './vscode/gowarmup';
import { ClusterTargetPicker } from './vscode/clustertarget';
import { LiveYamlProvider, SCHEME } from './vscode/liveyaml';
import { createLogger } from './vscode/output';
import { QueueTreeProvider } from './vscode/queuetree';
import { ReconcilerCodeLensProvider } from './vscode/reconcilermodules';
import { ReconcileSession } from './vscode/reconcilesession';
import { WorkspaceFaults } from './vscode/workspacefaults';
import { ResourceTreeProvider } from './vscode/resourcetree';
import { readSettings } from './vscode/settings';
import { ClusterStatusBar } from './vscode/statusbar';
import { watchTrust } from './vscode/trust';
import { YamlProblems } from './vscode/yamlproblems';

export function activate(context: vscode.ExtensionContext): void {
  const started = performance.now();
  const log = createLogger(context);
  const resources = new ResourceTreeProvider((m) => log.error(m));
  const queue = new QueueTreeProvider();
  const faults = new WorkspaceFaults(log);
  // Watch events reach the live YAML documents too; events only flow once a cluster has started.
  const clusters = new ClusterSession(
    context,
    log,
    resources,
    (ev) => liveYaml.objectChanged(ev.object),
    faults,
  );
  const liveYaml = new LiveYamlProvider(clusters);
  // Custom resources' YAML checked by the embedded cluster as it is typed, and Apply's refusals.
  const yamlProblems = new YamlProblems(clusters);
  const reconciles = new ReconcileSession(log, clusters, queue);
  const target = new ClusterTargetPicker(context, log);
  // The first Run or Debug of a Go operator finds its packages compiled (stopped when either builds).
  const warmup = new GoBuildWarmup(log);
  const goOperator = new GoOperatorSession(context, log, clusters, queue, target, warmup);
  const goDebug = new GoDebugController(context, log, clusters, target, warmup, queue);
  const statusBar = new ClusterStatusBar();
  const updateStatus = () =>
    statusBar.update({
      cluster: clusters.current?.name ?? null,
      objects: resources.model.objectCount,
      queueDepth: reconciles.queueDepth(),
      readOnly: clusters.current?.readOnly ?? false,
    });

  context.subscriptions.push(
    log,
    resources,
    queue,
    faults,
    clusters,
    liveYaml,
    yamlProblems,
    reconciles,
    warmup,
    goOperator,
    goDebug,
    target,
    statusBar,
    vscode.window.createTreeView('reconcileStudio.customResources', {
      treeDataProvider: resources,
      showCollapseAll: true,
    }),
    vscode.window.createTreeView('reconcileStudio.workQueue', { treeDataProvider: queue }),
    vscode.workspace.registerTextDocumentContentProvider(SCHEME, liveYaml),
    vscode.languages.registerCodeLensProvider(
      [
        { pattern: '**/*.reconciler.{ts,js,mts,mjs}' },
        { pattern: '**/reconcilers/*.{ts,js,mts,mjs}' },
      ],
      new ReconcilerCodeLensProvider(),
    ),
    vscode.languages.registerCodeLensProvider(
      { language: 'go', scheme: 'file' },
      new GoOperatorCodeLensProvider(),
    ),
    // A debugger panel open when the window reloaded comes back through its backend.
    DebuggerPanel.registerSerializer(context.extensionUri, (snapshot) =>
      snapshot?.source.backend === 'go' ? goDebug : reconciles,
    ),
    clusters.onDidChange(updateStatus),
    reconciles.onDidChangeQueue(updateStatus),
    resources.onDidChangeTreeData(updateStatus),
  );
  registerCommands({
    context,
    log,
    clusters,
    reconciles,
    goOperator,
    goDebug,
    target,
    yamlProblems,
  });
  watchTrust(context, log);
  warmup.schedule();
  context.subscriptions.push(vscode.workspace.onDidGrantWorkspaceTrust(() => warmup.schedule()));
  // The language client library is large: load it after activation returns.
  import('./vscode/languageclient')
    .then(({ startLanguageClient }) => startLanguageClient(context))
    .catch((err: unknown) =>
      log.error(
        `language server failed to start: ${err instanceof Error ? err.message : String(err)}`,
      ),
    );
  if (readSettings().cluster.autoStart)
    void vscode.commands.executeCommand('reconcileStudio.startCluster');
  log.info(`Reconcile Studio activated in ${(performance.now() - started).toFixed(1)} ms`);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
