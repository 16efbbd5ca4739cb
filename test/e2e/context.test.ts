/**
 * A developer's own cluster in a real VS Code: code-server gets a KUBECONFIG for a running
 * `reconcile-studio serve` (standing in for kind or a dev cluster), the user connects to its
 * context with writes allowed, and steps the sample reconciler against it.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serve, ROOT, type Served } from '../integration/serve';
import { launchWorkbench, stepAndWait, withScreenshotOnFailure, type Workbench } from './workbench';

describe('a reconciler against a kubeconfig context', { timeout: 300_000 }, () => {
  let served: Served;
  let wb: Workbench;

  before(async () => {
    served = await serve(['--manifests', join(ROOT, 'samples/quota-operator/config')]);
    wb = await launchWorkbench({
      env: { KUBECONFIG: served.kubeconfig },
      settings: { 'reconcileStudio.cluster.allowWrites': true },
    });
    await wb.openView('Reconcile Studio');
  });

  after(async () => {
    await wb?.close();
    await served?.stop();
  });

  it('connects to the context and shows its WebApps', async () => {
    await withScreenshotOnFailure(wb, 'context-connect', async () => {
      await wb.runCommand('Reconcile Studio: Connect to Cluster Context');
      const pick = wb.page.locator('.quick-input-list .monaco-list-row').first();
      await pick.waitFor({ timeout: 30_000 });
      await wb.page.keyboard.press('Enter');
      const sidebar = wb.page.locator('.sidebar');
      await sidebar.getByText('shop', { exact: true }).waitFor({ timeout: 60_000 });
      // The status bar names the context instead of the fake cluster.
      const status = wb.page.locator('.statusbar-item', { hasText: 'objects' }).first();
      await status.waitFor();
      assert.doesNotMatch((await status.textContent()) ?? '', /fake cluster/);
    });
  });

  it('steps the sample reconciler against that cluster until it creates the Deployment', async () => {
    await withScreenshotOnFailure(wb, 'context-debugger', async () => {
      await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
      const frame = await wb.findFrame('.pipeline', 60_000);
      await frame.locator('.status-held').waitFor({ timeout: 60_000 });
      for (let i = 0; i < 30; i++) {
        const calls =
          (await frame
            .locator('.calls')
            .textContent()
            .catch(() => '')) ?? '';
        if (/create\s*deployments.*201/s.test(calls)) break;
        await stepAndWait(frame);
      }
      assert.match(
        (await frame.locator('.calls').textContent()) ?? '',
        /create\s*deployments.*201\s*server/s,
      );
      await wb.screenshot('context-debugger');
    });
  });
});
