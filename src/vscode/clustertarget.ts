/**
 * Where Run Go Operator runs the operator: the embedded cluster (the default), or a context of the
 * user's kubeconfig reached through the recording proxy (src/proxy), which records its calls as
 * the embedded cluster does. A status-bar item shows the target and picks another. Writing to a
 * real cluster needs one explicit confirmation per context, remembered; the user's kubeconfig is
 * only read.
 */
import * as vscode from 'vscode';
import type { AuditLog } from '../cluster/endpoints/audit';
import type { ProxyHandle } from '../proxy/server';
import type { DiscoveringApiServer } from '../runtime/remotefindings';
import type { Logger } from './output';

export type ClusterTarget =
  { kind: 'embedded' } | { kind: 'context'; kubeconfig: string; context: string; server: string };

/** What an operator run needs of where it runs: a token of its own, a kubeconfig, the record. */
export interface OperatorEndpoint {
  addUser(user: string): string;
  kubeconfig(contextName: string, user: string): string;
  audit: AuditLog;
}

const TARGET_KEY = 'reconcileStudio.target';
const CONFIRMED_KEY = 'reconcileStudio.writesConfirmed';

const label = (t: ClusterTarget) => (t.kind === 'embedded' ? 'Embedded cluster' : t.context);
const contextKey = (t: { kubeconfig: string; context: string }) => `${t.kubeconfig}#${t.context}`;

export class ClusterTargetPicker implements vscode.Disposable {
  private target: ClusterTarget;
  private readonly item = vscode.window.createStatusBarItem(
    'reconcileStudio.target',
    vscode.StatusBarAlignment.Left,
    49,
  );
  /** One proxy per context, started on first use and kept until the extension stops. */
  private readonly proxies = new Map<string, Promise<ProxyHandle>>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: Logger,
  ) {
    this.target = context.workspaceState.get<ClusterTarget>(TARGET_KEY) ?? { kind: 'embedded' };
    this.item.name = 'Reconcile Studio: target cluster';
    this.item.command = 'reconcileStudio.pickTarget';
    this.render();
    this.item.show();
  }

  get current(): ClusterTarget {
    return this.target;
  }

  /** The quick pick: the embedded cluster, then each context of the user's kubeconfig. */
  async pick(): Promise<void> {
    const { defaultKubeconfig, listContexts } = await import('./kubeconfigsource');
    const file = defaultKubeconfig();
    let contexts: Array<{ name: string; server: string; current: boolean }> = [];
    try {
      contexts = listContexts(file);
    } catch (err) {
      this.log.warn(`No contexts read from ${file}: ${err instanceof Error ? err.message : err}`);
    }
    const items: Array<vscode.QuickPickItem & { target: ClusterTarget }> = [
      {
        label: '$(server-environment) Embedded cluster',
        description: 'the fake cluster in the editor',
        target: { kind: 'embedded' },
      },
      ...contexts.map((c) => ({
        label: `$(cloud) ${c.name}`,
        description: `${c.server}${c.current ? ' (current context)' : ''}`,
        detail: `through the recording proxy, with ${file}'s credentials`,
        target: { kind: 'context' as const, kubeconfig: file, context: c.name, server: c.server },
      })),
    ];
    const chosen = await vscode.window.showQuickPick(items, {
      title: 'Run Go Operator against…',
      placeHolder: `Embedded cluster, or a context of ${file}`,
    });
    if (!chosen) return;
    this.target = chosen.target;
    await this.context.workspaceState.update(TARGET_KEY, this.target);
    this.render();
  }

  /**
   * Asks once per context before an operator writes to that cluster; false when the user does
   * not allow it. The answer is remembered across sessions.
   */
  async confirmWrites(t: ClusterTarget): Promise<boolean> {
    if (t.kind === 'embedded') return true;
    const confirmed = this.context.globalState.get<string[]>(CONFIRMED_KEY) ?? [];
    if (confirmed.includes(contextKey(t))) return true;
    const allow = `Allow writes to ${t.context}`;
    const answer = await vscode.window.showWarningMessage(
      `Run the operator against the real cluster of context "${t.context}" (${t.server})? It will create, update and delete objects there with your credentials.`,
      { modal: true },
      allow,
    );
    if (answer !== allow) return false;
    await this.context.globalState.update(CONFIRMED_KEY, [...confirmed, contextKey(t)]);
    return true;
  }

  /** The recording proxy to the context (started once). */
  proxy(t: Extract<ClusterTarget, { kind: 'context' }>): Promise<ProxyHandle> {
    const key = contextKey(t);
    let p = this.proxies.get(key);
    if (!p) {
      p = (async () => {
        const { loadUpstream, startProxy } = await import('./kubeconfigsource');
        const proxy = await startProxy({
          upstream: await loadUpstream({ kubeconfig: t.kubeconfig, context: t.context }),
        });
        this.log.info(`Recording proxy to ${t.context} (${t.server}) at ${proxy.url}`);
        return proxy;
      })();
      // A failed start (a context whose credentials cannot be had) is tried again next time.
      p.catch(() => this.proxies.delete(key));
      this.proxies.set(key, p);
    }
    return p;
  }

  /**
   * A reading connection to the context with the user's own credentials (beside the proxy, not
   * through it: these are not the operator's calls), for the findings read from that cluster's
   * Events while an operator runs there (runtime/remotefindings.ts). One per session.
   */
  async reader(t: Extract<ClusterTarget, { kind: 'context' }>): Promise<DiscoveringApiServer> {
    const { connectContext } = await import('./kubeconfigsource');
    return connectContext(t.kubeconfig, t.context);
  }

  private render(): void {
    const t = this.target;
    this.item.text = `${t.kind === 'embedded' ? '$(server-environment)' : '$(cloud)'} ${label(t)}`;
    this.item.tooltip =
      t.kind === 'embedded'
        ? 'Run Go Operator runs against the embedded cluster. Click to choose a context of your kubeconfig.'
        : `Run Go Operator runs against ${t.context} (${t.server}) through the recording proxy. Click to choose another target.`;
  }

  dispose(): void {
    this.item.dispose();
    for (const p of this.proxies.values()) void p.then((h) => h.close()).catch(() => undefined);
  }
}
