/**
 * The Reconcile Studio language server (bundled to dist/server.js, started by the extension's
 * language client). Go and TypeScript documents are re-analyzed a moment after the last edit;
 * Go trees are edited in place and re-parsed incrementally. Diagnostics carry the rule id as
 * `code`, a link to the rule page, and quick fixes in `data` for code actions.
 */
import { dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  createConnection,
  ProposedFeatures,
  TextDocumentSyncKind,
  type Connection,
  type InitializeResult,
} from 'vscode-languageserver/node';
import { Analyzer } from './analyzer';
import { goHover } from './hover';
import { codeActions, toDiagnostic } from './lsp';
import { languageOf } from './files';
import { Workspace } from './workspace';
import {
  SETTINGS_SECTION,
  defaultSettings,
  sectionFrom,
  type ServerInitializationOptions,
  type Settings,
} from '../settings';

/** The `reconcileStudio.diagnostics` settings section, typed by the shared settings contract. */
export type DiagnosticsSettings = Settings['diagnostics'];

function uriToPath(uri: string): string {
  return uri.startsWith('file:') ? fileURLToPath(uri) : uri;
}

function pathToUri(path: string): string {
  return path.startsWith('/') || /^[A-Za-z]:[\\/]/.test(path)
    ? pathToFileURL(path).toString()
    : path;
}

export function startServer(connection: Connection): void {
  let workspace: Workspace | undefined;
  const ready: Promise<Workspace> = Analyzer.create().then((a) => {
    a.log = (line) => connection.console.warn(`reconcile-studio: ${line}`);
    return (workspace = new Workspace(a));
  });
  let settings: DiagnosticsSettings = defaultSettings().diagnostics;
  let canPullConfig = false;
  const timers = new Map<string, NodeJS.Timeout>();
  const published = new Set<string>();

  const publish = (path: string): void => {
    const ws = workspace;
    if (!ws) return;
    const uri = pathToUri(path);
    if (!settings.enabled || !ws.isOpen(path)) {
      if (published.delete(uri)) void connection.sendDiagnostics({ uri, diagnostics: [] });
      return;
    }
    try {
      const findings = ws.analyze(path, { severity: settings.severity });
      void connection.sendDiagnostics({ uri, diagnostics: findings.map(toDiagnostic) });
      published.add(uri);
    } catch (err) {
      connection.console.error(`reconcile-studio: analysis of ${path} failed: ${String(err)}`);
    }
  };

  /** Re-analyzes `path` (and open siblings of the same Go package) after the debounce delay. */
  const schedule = (path: string): void => {
    const targets = [path];
    if (path.endsWith('.go') && workspace) {
      const dir = dirname(path);
      for (const p of workspace.openPaths()) {
        if (p !== path && p.endsWith('.go') && dirname(p) === dir) targets.push(p);
      }
    }
    for (const p of targets) {
      clearTimeout(timers.get(p));
      const delay = p === path ? settings.debounceMs : settings.debounceMs * 2;
      timers.set(
        p,
        setTimeout(() => {
          timers.delete(p);
          publish(p);
        }, delay),
      );
    }
  };

  const refreshAll = (): void => {
    for (const p of workspace?.openPaths() ?? []) schedule(p);
  };

  const pullSettings = async (): Promise<void> => {
    if (!canPullConfig) return;
    const got: unknown = await connection.workspace.getConfiguration(
      `${SETTINGS_SECTION}.diagnostics`,
    );
    if (got && typeof got === 'object') settings = sectionFrom('diagnostics', got);
  };

  connection.onInitialize((params): InitializeResult => {
    canPullConfig = !!params.capabilities.workspace?.configuration;
    const init = params.initializationOptions as Partial<ServerInitializationOptions> | undefined;
    if (init?.diagnostics) settings = sectionFrom('diagnostics', init.diagnostics);
    return {
      capabilities: {
        textDocumentSync: { openClose: true, change: TextDocumentSyncKind.Incremental },
        codeActionProvider: { codeActionKinds: ['quickfix'] },
        hoverProvider: true,
      },
      serverInfo: { name: 'reconcile-studio' },
    };
  });

  connection.onInitialized(() => {
    void pullSettings().then(refreshAll, () => undefined);
  });

  connection.onDidChangeConfiguration((change) => {
    // The client pushes `{ reconcileStudio: { diagnostics } }` (its synchronize section).
    const pushed: unknown = (
      change.settings as Record<string, { diagnostics?: unknown } | undefined> | null
    )?.[SETTINGS_SECTION]?.diagnostics;
    if (pushed) settings = sectionFrom('diagnostics', pushed);
    void (pushed ? Promise.resolve() : pullSettings()).then(refreshAll, () => undefined);
  });

  connection.onDidOpenTextDocument(async ({ textDocument: d }) => {
    const path = uriToPath(d.uri);
    if (!languageOf(path)) return;
    const ws = await ready;
    ws.openDocument(path, d.languageId, d.version, d.text);
    schedule(path);
  });

  connection.onDidChangeTextDocument(async ({ textDocument: d, contentChanges }) => {
    const path = uriToPath(d.uri);
    const ws = await ready;
    if (!ws.isOpen(path)) return;
    ws.changeDocument(path, d.version, contentChanges);
    schedule(path);
  });

  connection.onDidCloseTextDocument(async ({ textDocument: d }) => {
    const path = uriToPath(d.uri);
    const ws = await ready;
    clearTimeout(timers.get(path));
    ws.close(path);
    if (published.delete(d.uri)) void connection.sendDiagnostics({ uri: d.uri, diagnostics: [] });
  });

  // Files changed on disk (the client watches **/*.go): API types and siblings may differ now.
  connection.onDidChangeWatchedFiles(async () => {
    const ws = await ready;
    ws.forgetTypes();
    refreshAll();
  });

  connection.onCodeAction(async (params) => {
    const ws = await ready;
    const text = ws.text(uriToPath(params.textDocument.uri)) ?? '';
    const lines = text.split('\n');
    return codeActions(params.textDocument.uri, params.context.diagnostics, (l) => lines[l] ?? '');
  });

  connection.onHover(async (params) => {
    const ws = await ready;
    const path = uriToPath(params.textDocument.uri);
    if (!path.endsWith('.go') || !ws.isOpen(path)) return null;
    const files = ws.packageFiles(path);
    const file = files[0];
    if (!file) return null;
    const offset = file.lines.offset(params.position);
    const findings = ws.analyze(path, { severity: settings.severity });
    const hover = goHover(files, file, offset, findings);
    return hover
      ? { contents: { kind: 'markdown', value: hover.markdown }, range: hover.range }
      : null;
  });

  connection.onShutdown(() => {
    for (const t of timers.values()) clearTimeout(t);
    workspace?.dispose();
  });

  connection.listen();
}

if (require.main === module) {
  startServer(createConnection(ProposedFeatures.all));
}
