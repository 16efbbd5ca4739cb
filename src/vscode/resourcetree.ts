/**
 * The Custom Resources view: a TreeDataProvider over ResourceTreeModel (objects, what they own,
 * the Events about them). Watch events go into the
 * model at once; the view is told about the changed nodes after a short quiet period.
 */
import * as vscode from 'vscode';
import type { WatchEvent } from '../cluster/apimachinery/types';
import { RealClock } from '../util/clock';
import { PacedKeyDebouncer } from './model/debounce';
import type { Health } from './model/objectstatus';
import { statusTooltip } from './model/objectstatus';
import { ResourceTreeModel, type ResourceNode } from './model/resourcetree';

const HEALTH_ICONS: Record<Health, [string, string]> = {
  ok: ['pass-filled', 'testing.iconPassed'],
  progressing: ['sync', 'charts.yellow'],
  warning: ['warning', 'list.warningForeground'],
  error: ['error', 'list.errorForeground'],
  unknown: ['circle-outline', 'disabledForeground'],
};

export class ResourceTreeProvider
  implements vscode.TreeDataProvider<ResourceNode>, vscode.Disposable
{
  readonly model = new ResourceTreeModel();

  /** `onError`: where a node that could not be drawn is reported (the extension's log). */
  constructor(private readonly onError: (message: string) => void = () => undefined) {}
  private readonly changed = new vscode.EventEmitter<ResourceNode | undefined | void>();
  readonly onDidChangeTreeData = this.changed.event;
  /**
   * Refreshes go out after 100 ms of quiet, and the next only once VS Code has begun on the last
   * (it asks for a row or the children of a node), or after a second: VS Code queues a view's
   * refreshes behind one another, and under a hot loop unpaced ones piled up until the view
   * showed a status minutes old.
   */
  private readonly debouncer = new PacedKeyDebouncer<string>(new RealClock(), 100, 1000, (ids) =>
    this.refresh(ids),
  );

  onEvent(ev: WatchEvent): void {
    for (const id of this.model.apply(ev)) this.debouncer.add(id);
  }

  reset(): void {
    this.debouncer.dispose();
    this.changed.fire();
  }

  private refresh(ids: Set<string>): void {
    if (ids.has('root')) return this.changed.fire();
    for (const id of ids) {
      const node = this.model.nodeById(id);
      if (node) this.changed.fire(node);
    }
  }

  getChildren(node?: ResourceNode): ResourceNode[] {
    this.debouncer.taken();
    try {
      return this.model.children(node);
    } catch (err) {
      this.onError(`Custom Resources: the children of ${node?.id ?? 'the root'}: ${describe(err)}`);
      return [];
    }
  }

  /**
   * Never throws: VS Code chains a view's refreshes on one promise, and a refresh that fails (a
   * tree item that throws) leaves every later one undone — the view would stay as it was.
   */
  getTreeItem(node: ResourceNode): vscode.TreeItem {
    this.debouncer.taken();
    try {
      return this.treeItem(node);
    } catch (err) {
      this.onError(`Custom Resources: the row of ${node.id}: ${describe(err)}`);
      const item = new vscode.TreeItem(node.id, vscode.TreeItemCollapsibleState.None);
      item.id = node.id;
      item.description = 'could not be drawn (see the Reconcile Studio log)';
      return item;
    }
  }

  private treeItem(node: ResourceNode): vscode.TreeItem {
    switch (node.type) {
      case 'kind': {
        const item = new vscode.TreeItem(node.kind.kind, vscode.TreeItemCollapsibleState.Expanded);
        item.description = `${node.kind.group} · ${node.count}`;
        item.iconPath = new vscode.ThemeIcon('symbol-class');
        item.contextValue = 'kind';
        item.id = node.id;
        return item;
      }
      case 'namespace': {
        const item = new vscode.TreeItem(node.namespace, vscode.TreeItemCollapsibleState.Expanded);
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon('folder');
        item.contextValue = 'namespace';
        item.id = node.id;
        return item;
      }
      case 'object': {
        const { object, status } = node;
        const label = node.custom
          ? object.metadata.name!
          : `${object.kind} ${object.metadata.name}`;
        const item = new vscode.TreeItem(
          label,
          node.childCount > 0
            ? vscode.TreeItemCollapsibleState.Collapsed
            : vscode.TreeItemCollapsibleState.None,
        );
        item.id = node.id;
        const [icon, color] = HEALTH_ICONS[status.health];
        item.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(color));
        const parts = [status.summary];
        if (status.stale)
          parts.push(
            `status stale (gen ${status.generation}, observed ${status.observedGeneration})`,
          );
        item.description = parts.filter(Boolean).join(' · ');
        item.tooltip = new vscode.MarkdownString(statusTooltip(object, status));
        item.contextValue = node.custom ? 'customResource' : 'ownedObject';
        item.command = {
          command: 'reconcileStudio.openYaml',
          title: 'Open Live YAML',
          arguments: [node],
        };
        return item;
      }
      case 'event': {
        // As `kubectl describe` lists them: type, reason, count, message.
        const e = node.event;
        const item = new vscode.TreeItem(e.reason ?? 'Event', vscode.TreeItemCollapsibleState.None);
        item.id = node.id;
        const warning = e.type === 'Warning';
        item.iconPath = new vscode.ThemeIcon(
          warning ? 'warning' : 'info',
          new vscode.ThemeColor(warning ? 'list.warningForeground' : 'descriptionForeground'),
        );
        item.description = `${(e.count ?? 1) > 1 ? `×${e.count} · ` : ''}${e.message ?? ''}`;
        item.tooltip = `${e.type ?? 'Normal'} ${e.reason ?? ''}: ${e.message ?? ''}`;
        item.contextValue = 'event';
        return item;
      }
    }
  }

  getParent(): undefined {
    return undefined;
  }

  dispose(): void {
    this.debouncer.dispose();
    this.changed.dispose();
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
