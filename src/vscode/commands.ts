/**
 * Every command of the extension, registered in one place. Each handler reports failures to the
 * user and the output channel instead of throwing into VS Code.
 */
import * as vscode from 'vscode';
import type { KubeObject } from '../cluster/apimachinery/types';
import type { ClusterSession } from './clustersession';
import { DebuggerPanel } from './debuggerpanel';
import type { ClusterTargetPicker } from './clustertarget';
import type { GoDebugController } from './godebug';
import { goOperatorModules, type GoOperatorSession } from './gooperator';
import { applyEditorYaml, editObject, liveUri } from './liveyaml';
import type { ObjectNode } from './model/resourcetree';
import type { QueueNode } from './model/queuetree';
import type { Logger } from './output';
import { debuggerTarget } from './model/debuggertarget';
import { runtimeConflict, type Runtime } from './model/runtimes';
import { findReconcilerModules, pickReconcilerModule } from './reconcilermodules';
import type { ReconcileSession } from './reconcilesession';
import { RobustnessReport } from './robustness';
import { chooseReportTarget } from './robustnesstarget';
import { openSample } from './sample';
import { readSettings } from './settings';
import type { YamlProblems } from './yamlproblems';

export interface CommandDeps {
  context: vscode.ExtensionContext;
  log: Logger;
  clusters: ClusterSession;
  reconciles: ReconcileSession;
  goOperator: GoOperatorSession;
  goDebug: GoDebugController;
  target: ClusterTargetPicker;
  /** Where Apply YAML puts what the cluster refused. */
  yamlProblems: YamlProblems;
}

export function registerCommands({
  context,
  log,
  clusters,
  reconciles,
  goOperator,
  goDebug,
  target,
  yamlProblems,
}: CommandDeps): void {
  const register = (id: string, fn: (...args: never[]) => unknown) =>
    context.subscriptions.push(
      vscode.commands.registerCommand(id, async (...args: never[]) => {
        try {
          return await fn(...args);
        } catch (err) {
          const message = err instanceof Error ? err.message : String(err);
          log.error(`${id}: ${message}`);
          void vscode.window.showErrorMessage(`Reconcile Studio: ${message}`);
        }
      }),
    );

  /** Whether a command given `given` is about a Go operator or a TypeScript reconciler. */
  const targetOf = (given: vscode.Uri | undefined, goActive: boolean) =>
    debuggerTarget({
      given: given?.fsPath,
      goActive,
      tsRunning: reconciles.isRunning,
      tsModules: async () => (await findReconcilerModules()).length,
      goOperatorModules: async () => (vscode.workspace.isTrusted ? goOperatorModules() : []),
    });

  /**
   * One runtime reconciles the cluster at a time (model/runtimes.ts): starting one while another
   * runs asks first; answers whether to go on (the others stopped).
   */
  const onlyRuntime = async (starting: Runtime): Promise<boolean> => {
    const conflict = runtimeConflict(starting, {
      ...(reconciles.isRunning
        ? { typescript: vscode.workspace.asRelativePath(reconciles.module!) }
        : {}),
      go: goOperator.isRunning,
      goDebug: goDebug.active,
    });
    if (!conflict) return true;
    const pick = await vscode.window.showWarningMessage(
      conflict.message,
      { modal: true },
      conflict.action,
    );
    if (pick !== conflict.action) return false;
    const stops: Record<Runtime, () => Promise<void>> = {
      typescript: () => reconciles.stop(),
      go: () => goOperator.stop(),
      'go-debug': () => goDebug.stop(),
    };
    for (const r of conflict.stop) await stops[r]();
    log.info(`stopped ${conflict.stop.join(' and ')} to run ${starting}`);
    return true;
  };

  register('reconcileStudio.showOutput', () => log.show(true));
  register('reconcileStudio.openSample', () => openSample(context));

  // ---- cluster
  register('reconcileStudio.startCluster', async () => {
    await clusters.startEmbedded();
    await vscode.commands.executeCommand('reconcileStudio.customResources.focus');
  });
  register('reconcileStudio.stopCluster', async () => {
    await goOperator.stop();
    await reconciles.stop();
    await clusters.stop();
  });
  register('reconcileStudio.resetCluster', async () => {
    const reset = 'Reset';
    const answer = await vscode.window.showWarningMessage(
      'Reset the fake cluster? Every object in it goes, and the workspace\u2019s manifests are loaded again.',
      { modal: true },
      reset,
    );
    if (answer !== reset) return;
    await goOperator.stop();
    await reconciles.stop();
    await clusters.reset();
  });
  // ---- Go operator
  register('reconcileStudio.runGoOperator', async (uri?: vscode.Uri) => {
    if (!(await onlyRuntime('go'))) return;
    await goOperator.run(uri instanceof vscode.Uri ? uri : undefined);
    await vscode.commands.executeCommand('reconcileStudio.workQueue.focus');
  });
  // Whichever Go operator runs: the one Run Go Operator started, or the one under Delve.
  register('reconcileStudio.stopGoOperator', async () => {
    await goOperator.stop();
    await goDebug.stop();
  });
  register('reconcileStudio.pickTarget', () => target.pick());
  register('reconcileStudio.loadManifests', () => clusters.loadWorkspaceManifests());
  register('reconcileStudio.connectContext', async () => {
    // @kubernetes/client-node is heavy to load: only when the user asks for a real cluster.
    const { KubeconfigSource, kubeconfigContexts } = await import('./kubeconfigsource');
    const { contexts } = kubeconfigContexts();
    if (contexts.length === 0)
      throw new Error('No kubeconfig contexts found (KUBECONFIG or ~/.kube/config).');
    const pick = await vscode.window.showQuickPick(contexts, {
      title: 'Connect to a kubeconfig context',
    });
    if (!pick) return;
    await reconciles.stop();
    await clusters.use(new KubeconfigSource(pick, !readSettings().cluster.allowWrites));
    log.info(
      `connected to context ${pick}${readSettings().cluster.allowWrites ? '' : ' (read-only)'}`,
    );
  });

  // ---- objects in the Custom Resources view
  const objectOf = (node?: ObjectNode): KubeObject => {
    if (!node?.object) throw new Error('Select an object in the Custom Resources view.');
    return node.object;
  };
  register('reconcileStudio.openYaml', async (node?: ObjectNode) => {
    const doc = await vscode.workspace.openTextDocument(liveUri(objectOf(node)));
    await vscode.languages.setTextDocumentLanguage(doc, 'yaml');
    await vscode.window.showTextDocument(doc, { preview: true });
  });
  register('reconcileStudio.editYaml', (node?: ObjectNode) => editObject(objectOf(node)));
  register('reconcileStudio.applyYaml', async () => {
    const editor = vscode.window.activeTextEditor;
    if (!editor) throw new Error('Open a YAML manifest to apply.');
    await applyEditorYaml(clusters, editor.document, yamlProblems);
  });
  register('reconcileStudio.deleteObject', async (node?: ObjectNode) => {
    const obj = objectOf(node);
    const name = `${obj.kind} ${obj.metadata.namespace ? obj.metadata.namespace + '/' : ''}${obj.metadata.name}`;
    const ok = await vscode.window.showWarningMessage(`Delete ${name}?`, { modal: true }, 'Delete');
    if (ok !== 'Delete') return;
    await clusters.current?.delete(obj, obj.metadata.namespace, obj.metadata.name!);
  });
  register('reconcileStudio.copyName', async (node?: ObjectNode) => {
    await vscode.env.clipboard.writeText(objectOf(node).metadata.name ?? '');
  });
  register('reconcileStudio.reconcileNow', (node?: ObjectNode) => {
    const obj = objectOf(node);
    reconciles.reconcileNow(obj.metadata.namespace ?? '', obj.metadata.name!);
  });

  // ---- reconcilers
  register('reconcileStudio.runReconciler', async (uri?: vscode.Uri) => {
    const module = await pickReconcilerModule(uri instanceof vscode.Uri ? uri : undefined);
    if (module && (await onlyRuntime('typescript'))) await reconciles.run(module, { hold: false });
  });
  register('reconcileStudio.debugGoOperator', async (uri?: vscode.Uri) => {
    if (!goDebug.active && !(await onlyRuntime('go-debug'))) return;
    await goDebug.showPanel(context.extensionUri);
    await goDebug.start(uri instanceof vscode.Uri ? uri : undefined);
  });
  register('reconcileStudio.goDebugShowSource', () => goDebug.showSource());
  register('reconcileStudio.openDebugger', async (uri?: vscode.Uri) => {
    const given = uri instanceof vscode.Uri ? uri : undefined;
    // While Run Go Operator's manager runs (and none is under Delve), the panel follows its
    // reconciles as the cluster saw them, rather than stopping it to debug another.
    if (!given && goOperator.isRunning && !goDebug.active) {
      await goOperator.showDebugger(context.extensionUri);
      return;
    }
    // In a Go file, while a Go operator is under the debugger, or in a workspace whose only
    // reconcilers are Go, the panel follows the Go debugger.
    const target = await targetOf(given, goDebug.active);
    if (target.kind === 'go') {
      if (!goDebug.active && !(await onlyRuntime('go-debug'))) return;
      await goDebug.showPanel(context.extensionUri);
      if (!goDebug.active)
        await goDebug.start(target.module ? vscode.Uri.file(target.module) : undefined);
      return;
    }
    DebuggerPanel.show(context.extensionUri, reconciles);
    if (reconciles.isRunning && !given) return;
    if (!vscode.workspace.isTrusted) return;
    const module = await pickReconcilerModule(given);
    if (module && (await onlyRuntime('typescript'))) await reconciles.run(module, { hold: true });
  });
  register('reconcileStudio.simulate', async (uri?: vscode.Uri) => {
    const module = await pickReconcilerModule(uri instanceof vscode.Uri ? uri : undefined);
    if (module) await (await import('./simulate')).runSimulation(module, log);
  });
  const robustness = new RobustnessReport(context.extensionUri, log);
  context.subscriptions.push(robustness);
  register('reconcileStudio.runRobustnessReport', async (uri?: vscode.Uri) => {
    // The runtime of the file in hand, else the one running, else the user's pick when both exist.
    const target = await chooseReportTarget(uri instanceof vscode.Uri ? uri : undefined, {
      ...(reconciles.isRunning && reconciles.module ? { typescript: reconciles.module } : {}),
      go: goDebug.active || goOperator.isRunning,
    });
    if (target) await robustness.run(target);
  });

  // ---- Work Queue items
  const keyOf = (node?: QueueNode): string => {
    if (node?.type !== 'item') throw new Error('Select a request in the Work Queue view.');
    return node.key;
  };
  register('reconcileStudio.stepInto', (node?: QueueNode) => {
    reconciles.stepInto(keyOf(node));
    DebuggerPanel.show(context.extensionUri, reconciles);
  });
  register('reconcileStudio.requeueNow', (node?: QueueNode) => {
    const [namespace, name] = splitKey(keyOf(node));
    reconciles.reconcileNow(namespace, name);
  });
  register('reconcileStudio.forget', (node?: QueueNode) => reconciles.forget(keyOf(node)));
}

function splitKey(key: string): [string, string] {
  const i = key.indexOf('/');
  return i < 0 ? ['', key] : [key.slice(0, i), key.slice(i + 1)];
}
