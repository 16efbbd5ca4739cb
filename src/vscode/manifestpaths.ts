import { existsSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';

/**
 * The workspace's manifest folders that exist, in load order (kubebuilder: CRDs, then samples).
 * The loader itself orders CRDs and Namespaces first within them.
 */
export async function workspaceManifestPaths(relative: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    for (const rel of relative) {
      const uri = vscode.Uri.joinPath(folder.uri, rel);
      try {
        await vscode.workspace.fs.stat(uri);
        if (uri.scheme === 'file') out.push(uri.fsPath);
      } catch {
        // Not every workspace has every folder.
      }
    }
  }
  return out;
}

/** The manifest folders (workspace-relative in the setting) that exist inside a Go module. */
export function moduleManifestPaths(moduleDir: string, relative: string[]): string[] {
  return relative.map((rel) => join(moduleDir, rel)).filter((p) => existsSync(p));
}
