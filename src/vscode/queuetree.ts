/** The Work Queue view: a TreeDataProvider over QueueTreeModel, refreshed by the session. */
import * as vscode from 'vscode';
import { QueueTreeModel, sectionLabel, type QueueNode } from './model/queuetree';

const SECTION_ICONS = {
  processing: 'loading~spin',
  queued: 'list-ordered',
  waiting: 'watch',
  findings: 'warning',
} as const;

export class QueueTreeProvider implements vscode.TreeDataProvider<QueueNode>, vscode.Disposable {
  readonly model = new QueueTreeModel();
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;

  refresh(): void {
    this.changed.fire();
  }

  getChildren(node?: QueueNode): QueueNode[] {
    return this.model.children(node);
  }

  getTreeItem(node: QueueNode): vscode.TreeItem {
    const Collapsed = vscode.TreeItemCollapsibleState;
    switch (node.type) {
      case 'build': {
        const item = new vscode.TreeItem(node.text, Collapsed.None);
        item.tooltip = node.tooltip;
        item.iconPath = new vscode.ThemeIcon('loading~spin');
        item.id = node.id;
        item.contextValue = 'queueBuild';
        return item;
      }
      case 'controller': {
        const item = new vscode.TreeItem(node.controller, Collapsed.Expanded);
        item.description = `${node.busy} processing · ${node.depth} queued · ${node.waiting} waiting`;
        item.iconPath = new vscode.ThemeIcon('gear');
        item.id = node.id;
        return item;
      }
      case 'section': {
        // Always expandable: a section that starts empty must still open when items arrive.
        const item = new vscode.TreeItem(sectionLabel(node.section), Collapsed.Expanded);
        item.description = String(node.count);
        item.iconPath = new vscode.ThemeIcon(SECTION_ICONS[node.section]);
        item.id = node.id;
        return item;
      }
      case 'item': {
        const item = new vscode.TreeItem(node.key, Collapsed.None);
        item.description = node.description;
        item.tooltip = node.tooltip;
        item.id = node.id;
        item.contextValue = `queueItem.${node.section}`;
        item.iconPath = new vscode.ThemeIcon(
          node.section === 'findings' ? 'error' : node.retries ? 'warning' : 'symbol-event',
        );
        return item;
      }
    }
  }

  dispose(): void {
    this.changed.dispose();
  }
}
