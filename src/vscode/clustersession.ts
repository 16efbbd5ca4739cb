/**
 * The cluster the views show: the embedded fake cluster (started on demand, the workspace's
 * kubebuilder manifests loaded, served over HTTPS on loopback so kubectl in the terminal can use
 * it) or a kubeconfig context. Owns the source, feeds the Custom Resources view, and says what is
 * running through context keys and the status bar.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import type { Cluster } from '../cluster/cluster';
import type { ServerHandle } from '../cluster/endpoints/server';
import type { ClusterState, Persistence } from '../cluster/storage/state';
import type { WatchEvent } from '../cluster/apimachinery/types';
import { VirtualClock } from '../util/clock';
import { ClockPacer } from '../util/pacer';
import { EmbeddedSource } from './embeddedsource';
import { workspaceManifestPaths } from './manifestpaths';
import { CRD_TYPE, OWNED_KINDS, typeOfKind, type ResourceSource } from './model/source';
import { formatDuration } from './model/timeformat';
import type { Logger } from './output';
import type { ResourceTreeProvider } from './resourcetree';
import { readSettings, type Settings } from './settings';
import type { WorkspaceFaults } from './workspacefaults';

export class ClusterSession implements vscode.Disposable {
  private source: ResourceSource | undefined;
  private embedded: Cluster | undefined;
  /** The start under way or done, shared by every caller until the cluster stops. */
  private starting: Promise<Cluster> | undefined;
  private served: ServerHandle | undefined;
  /** The embedded cluster's state file's log, while `cluster.keepState` keeps it. */
  private persistence: Persistence | undefined;
  private pacer: ClockPacer | undefined;
  private stopWatch: (() => void) | undefined;
  private kindsKey = '';
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when the cluster starts, stops or switches. */
  readonly onDidChange = this.changed.event;
  private readonly manifestProblems = vscode.languages.createDiagnosticCollection(
    'reconcile-studio-manifests',
  );

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
    private readonly tree: ResourceTreeProvider,
    private readonly onObject: (ev: WatchEvent) => void = () => undefined,
    /** The workspace's faults file, injected into the embedded cluster's requests. */
    readonly faults?: WorkspaceFaults,
  ) {}

  get cluster(): Cluster | undefined {
    return this.embedded;
  }

  /** The embedded cluster's HTTPS server, while it is served. */
  get server(): ServerHandle | undefined {
    return this.served;
  }

  get current(): ResourceSource | undefined {
    return this.source;
  }

  get kubeconfigPath(): string | undefined {
    return this.served
      ? join(this.context.globalStorageUri.fsPath, 'fake-cluster.kubeconfig')
      : undefined;
  }

  /**
   * Starts the embedded cluster (once) with the workspace's manifests; returns it once it is
   * served and watched. A caller that comes while a start is under way (Run Go Operator while the
   * view's own start is still loading, on a busy machine) waits for that start: a second cluster
   * beside it would take the kubeconfig and the views from the one the first caller uses.
   */
  startEmbedded(): Promise<Cluster> {
    this.starting ??= this.start().catch((err: unknown) => {
      this.starting = undefined;
      throw err;
    });
    return this.starting;
  }

  private async start(): Promise<Cluster> {
    const settings = readSettings();
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: 'Reconcile Studio: starting the fake cluster',
      },
      async (progress) => {
        const started = performance.now();
        // Virtual time paced to the wall clock: the debugger can freeze it while a reconcile is held.
        const clock = new VirtualClock(Date.now());
        this.pacer = new ClockPacer(clock);
        this.pacer.start();
        // Loaded on first use, so activating the extension does not pay for the cluster.
        const { createCluster, persist } = await import('./engine');
        const stateFile = this.stateFile(settings);
        const state = stateFile ? await this.restore(stateFile) : undefined;
        const cluster = createCluster({
          clock,
          podReadyDelayMs: settings.cluster.podReadyDelayMs,
          ...(state ? { state } : {}),
        });
        this.embedded = cluster;
        progress.report({ message: 'loading workspace manifests' });
        const paths = await workspaceManifestPaths(settings.cluster.manifests);
        await this.loadInto(cluster, paths, state !== undefined);
        if (stateFile) {
          try {
            this.persistence = await persist(cluster, stateFile);
          } catch (err) {
            this.log.error(
              `cannot keep the fake cluster's state in ${stateFile}: ${err instanceof Error ? err.message : String(err)}; it runs in memory only`,
            );
          }
        }
        if (settings.cluster.serve) await this.serve(cluster);
        await this.use(new EmbeddedSource(cluster));
        this.log.info(`fake cluster ready in ${formatDuration(performance.now() - started)}`);
        return cluster;
      },
    );
  }

  /**
   * Where the embedded cluster keeps its objects between windows (`cluster.keepState`): the
   * workspace's storage, so a reload or a restart finds what the user and their operator wrote.
   * Undefined without a workspace or with the setting off.
   */
  private stateFile(settings: Settings): string | undefined {
    const dir = this.context.storageUri?.fsPath;
    if (!settings.cluster.keepState || !dir) return undefined;
    mkdirSync(dir, { recursive: true });
    return join(dir, 'fake-cluster.state');
  }

  /**
   * The saved state, if any. A log damaged before its end stops the start, as it stops `serve`:
   * starting without it would drop writes that were answered; Reset Fake Cluster to the Manifests
   * starts afresh.
   */
  private async restore(stateFile: string): Promise<ClusterState | undefined> {
    const { restoreState } = await import('./engine');
    const r = restoreState(stateFile);
    if (!r.ok) {
      void vscode.window.showErrorMessage(
        `Reconcile Studio: the fake cluster's saved state cannot be read: ${r.error}. Reset Fake Cluster to the Manifests starts it afresh.`,
      );
      throw new Error(r.error);
    }
    for (const n of r.notes) this.log.info(n);
    for (const w of r.warnings) this.log.warn(w);
    return r.state;
  }

  /**
   * Stops the embedded cluster, forgets its saved state and starts it again from the workspace's
   * manifests alone.
   */
  async reset(): Promise<void> {
    await this.stop();
    const stateFile = this.stateFile(readSettings());
    if (stateFile) {
      const { walFileOf } = await import('./engine');
      rmSync(stateFile, { force: true });
      rmSync(walFileOf(stateFile), { force: true });
    }
    await this.startEmbedded();
  }

  /** Loads manifests into the running embedded cluster; errors go to Problems with file:line. */
  async loadWorkspaceManifests(): Promise<void> {
    const cluster = await this.startEmbedded();
    await this.loadInto(cluster, await workspaceManifestPaths(readSettings().cluster.manifests));
  }

  /** `keepStored`: objects restored from the saved state win over the manifests' versions. */
  private async loadInto(cluster: Cluster, paths: string[], keepStored = false): Promise<void> {
    if (paths.length === 0) {
      this.log.info(
        'no manifest folders found in the workspace (setting reconcileStudio.cluster.manifests)',
      );
      return;
    }
    const { loadManifests } = await import('./engine');
    // What the state kept is newer than the manifests: re-applying them would undo the user's edits.
    const result = loadManifests(cluster, paths, { keepStored });
    this.log.info(`loaded ${result.applied.length} objects from ${paths.join(', ')}`);
    if (result.kept.length)
      this.log.info(
        `kept ${result.kept.length} objects as they were saved rather than the manifests' version (Reset Fake Cluster to the Manifests loads those): ${result.kept
          .map((k) => `${k.kind}/${k.namespace ? `${k.namespace}/` : ''}${k.name}`)
          .join(', ')}`,
      );
    const byFile = new Map<string, vscode.Diagnostic[]>();
    for (const e of result.errors) {
      this.log.warn(`${e.file}:${e.line}: ${e.message}`);
      const line = Math.max(0, (e.line ?? 1) - 1);
      const d = new vscode.Diagnostic(
        new vscode.Range(line, 0, line, 1000),
        e.message,
        vscode.DiagnosticSeverity.Error,
      );
      d.source = 'reconcile-studio';
      byFile.set(e.file, [...(byFile.get(e.file) ?? []), d]);
    }
    this.manifestProblems.clear();
    for (const [file, diags] of byFile) this.manifestProblems.set(vscode.Uri.file(file), diags);
    if (result.errors.length) {
      void vscode.window.showWarningMessage(
        `Reconcile Studio: ${result.errors.length} manifest(s) could not be applied; see Problems.`,
      );
    }
  }

  /** Serves the cluster on 127.0.0.1 and points new terminals' KUBECONFIG at it. */
  private async serve(cluster: Cluster): Promise<void> {
    const { startServer, writeKubeconfigFile } = await import('./engine');
    const faults = await this.faults?.load();
    this.served = await startServer({ cluster, ...(faults ? { faults } : {}) });
    const file = join(this.context.globalStorageUri.fsPath, 'fake-cluster.kubeconfig');
    // Its own file (never the user's kubeconfig): atomic, 0600 as it holds the bearer token.
    writeKubeconfigFile(file, this.served.kubeconfig('reconcile-studio'));
    this.context.environmentVariableCollection.replace('KUBECONFIG', file);
    this.context.environmentVariableCollection.description =
      'Points kubectl at Reconcile Studio\u2019s fake cluster';
    this.log.info(`fake cluster served at ${this.served.url}; kubeconfig ${file}`);
  }

  /** Switches the views to a source (embedded or kubeconfig). */
  async use(source: ResourceSource): Promise<void> {
    this.detach();
    this.source = source;
    await this.rewatch();
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.clusterRunning', true);
    this.changed.fire();
  }

  /** (Re)reads the CRDs and watches their kinds, the owned built-ins, and CRDs themselves. */
  private async rewatch(): Promise<void> {
    const source = this.source;
    if (!source) return;
    this.stopWatch?.();
    const crKinds = await source.customKinds();
    this.kindsKey = kindsKey(crKinds);
    this.tree.model.setKinds(crKinds);
    this.tree.reset();
    const stopObjects = source.watch(
      [...crKinds.map(typeOfKind), ...OWNED_KINDS],
      (ev) => {
        this.tree.onEvent(ev);
        this.onObject(ev);
      },
      (err) => this.log.error(`watch failed: ${err instanceof Error ? err.message : String(err)}`),
    );
    // A CRD applied or removed changes what the view lists: re-watch when the set of kinds differs.
    const stopCrds = source.watch(
      [CRD_TYPE],
      () => void this.rewatchIfKindsChanged(source),
      () => undefined,
    );
    this.stopWatch = () => {
      stopObjects();
      stopCrds();
    };
  }

  private async rewatchIfKindsChanged(source: ResourceSource): Promise<void> {
    if (source !== this.source) return;
    if (kindsKey(await source.customKinds()) !== this.kindsKey) await this.rewatch();
  }

  private detach(): void {
    this.stopWatch?.();
    this.stopWatch = undefined;
    this.source?.dispose();
    this.source = undefined;
  }

  async stop(): Promise<void> {
    // A start under way finishes first, so what it starts is stopped too.
    await this.starting?.catch(() => undefined);
    this.starting = undefined;
    this.detach();
    const kubeconfig = this.kubeconfigPath;
    await this.served?.close();
    // The token is dead with the server: no stale credentials left behind.
    if (kubeconfig) rmSync(kubeconfig, { force: true });
    this.served = undefined;
    // The last snapshot, and the log folded into it, before the cluster goes.
    try {
      await this.persistence?.close();
    } catch (err) {
      this.log.error(
        `could not save the fake cluster's state: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
    this.persistence = undefined;
    this.embedded?.close();
    this.embedded = undefined;
    this.pacer?.stop();
    this.pacer = undefined;
    this.context.environmentVariableCollection.delete('KUBECONFIG');
    this.tree.model.setKinds([]);
    this.tree.reset();
    await vscode.commands.executeCommand('setContext', 'reconcileStudio.clusterRunning', false);
    this.changed.fire();
  }

  dispose(): void {
    void this.stop();
    this.manifestProblems.dispose();
    this.changed.dispose();
  }
}

function kindsKey(kinds: Array<{ group: string; version: string; kind: string }>): string {
  return kinds
    .map((k) => `${k.group}/${k.version}/${k.kind}`)
    .sort()
    .join(',');
}
