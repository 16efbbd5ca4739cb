import assert from 'node:assert/strict';
import * as vscode from 'vscode';

const ID = 'reconcile-studio.reconcile-studio';

/** Declared with mocha's globals once run() has set them up. */
export function suite(): void {
  describe('Reconcile Studio in the extension host', () => {
    it('activates without errors', async () => {
      const ext = vscode.extensions.getExtension(ID);
      assert.ok(ext, `${ID} is installed`);
      await ext.activate();
      assert.equal(ext.isActive, true);
    });

    it('registers every command it contributes', async () => {
      const ext = vscode.extensions.getExtension(ID)!;
      const contributed = (ext.packageJSON.contributes.commands as Array<{ command: string }>).map(
        (c) => c.command,
      );
      const registered = new Set(await vscode.commands.getCommands(true));
      assert.deepEqual(
        contributed.filter((c) => !registered.has(c)),
        [],
      );
    });

    it('starts the fake cluster with the workspace manifests and serves live YAML of a WebApp', async () => {
      await vscode.commands.executeCommand('reconcileStudio.startCluster');
      const uri = vscode.Uri.from({
        scheme: 'reconcile-studio',
        path: '/default/WebApp/shop.yaml',
        query: 'apiVersion=apps.example.com%2Fv1&kind=WebApp',
      });
      const doc = await vscode.workspace.openTextDocument(uri);
      assert.match(doc.getText(), /name: shop/);
      assert.match(doc.getText(), /replicas: 3/);
    });
  });
}
