/**
 * Starts the Reconcile Studio language server (dist/server.js) for Go and TypeScript files and
 * keeps the `reconcileStudio.diagnostics` settings in sync with it.
 */
import * as vscode from 'vscode';
import {
  LanguageClient,
  TransportKind,
  type LanguageClientOptions,
  type ServerOptions,
} from 'vscode-languageclient/node';
import { SETTINGS_SECTION, type ServerInitializationOptions } from '../settings';
import { readSettings } from './settings';

export async function startLanguageClient(
  context: vscode.ExtensionContext,
): Promise<LanguageClient> {
  const serverModule = context.asAbsolutePath('dist/server.js');
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: {
      module: serverModule,
      transport: TransportKind.ipc,
      options: { execArgv: ['--nolazy', '--inspect=6019'] },
    },
  };
  const goFiles = vscode.workspace.createFileSystemWatcher('**/*.go');
  context.subscriptions.push(goFiles);
  const initializationOptions: ServerInitializationOptions = {
    diagnostics: readSettings().diagnostics,
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'go' },
      { scheme: 'file', language: 'typescript' },
    ],
    synchronize: {
      configurationSection: `${SETTINGS_SECTION}.diagnostics`,
      // API types and sibling files edited outside the editor change what the server knows.
      fileEvents: goFiles,
    },
    initializationOptions,
  };
  const client = new LanguageClient(
    'reconcileStudio',
    'Reconcile Studio',
    serverOptions,
    clientOptions,
  );
  await client.start();
  context.subscriptions.push(client);
  return client;
}
