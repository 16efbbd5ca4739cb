/** Typed access to the extension's settings; the names and defaults mirror package.json. */
import * as vscode from 'vscode';

export interface Settings {
  autoStart: boolean;
  serve: boolean;
  podReadyDelayMs: number;
  manifests: string[];
  allowWrites: boolean;
  breakOnStart: boolean;
  goRunCommand: string;
}

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('reconcileStudio');
  return {
    autoStart: c.get('cluster.autoStart', false),
    serve: c.get('cluster.serve', true),
    podReadyDelayMs: c.get('cluster.podReadyDelayMs', 2000),
    manifests: c.get('cluster.manifests', ['config/crd/bases', 'config/samples']),
    allowWrites: c.get('cluster.allowWrites', false),
    breakOnStart: c.get('debugger.breakOnStart', true),
    goRunCommand: c.get('go.runCommand', 'go run ./cmd').trim() || 'go run ./cmd',
  };
}
