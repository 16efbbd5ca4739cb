/**
 * Workspace Trust in a real VS Code: a user who does not trust the sample's authors gets
 * diagnostics and the manifests, but no workspace code runs, and the views say so.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

describe('an untrusted workspace', { timeout: 240_000 }, () => {
  let wb: Workbench;

  before(async () => {
    wb = await launchWorkbench({ workspaceTrust: true });
    // VS Code asks at start-up; answer as a careful user would.
    const dontTrust = wb.page.getByRole('button', { name: /No, I don.t trust the authors/ });
    await dontTrust.waitFor({ timeout: 60_000 });
    await dontTrust.click();
  });

  after(async () => {
    await wb?.close();
  });

  it('says in the Work Queue view that reconcilers do not run here', async () => {
    await withScreenshotOnFailure(wb, 'trust-views', async () => {
      await wb.openView('Reconcile Studio');
      const sidebar = wb.page.locator('.sidebar');
      await sidebar.getByText(/This workspace is not trusted/).waitFor({ timeout: 30_000 });
    });
  });

  it('still starts the fake cluster and shows the static manifests', async () => {
    await withScreenshotOnFailure(wb, 'trust-cluster', async () => {
      const sidebar = wb.page.locator('.sidebar');
      await sidebar.getByRole('button', { name: 'Start Fake Cluster' }).first().click();
      await sidebar.getByText('shop', { exact: true }).waitFor({ timeout: 60_000 });
      await wb.screenshot('untrusted');
    });
  });

  it('does not run a reconciler from the workspace', async () => {
    await withScreenshotOnFailure(wb, 'trust-run', async () => {
      await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
      const frame = await wb.findFrame('.pipeline', 60_000);
      await frame
        .getByText(/this workspace is not trusted/)
        .first()
        .waitFor({ timeout: 30_000 });
      assert.equal(await frame.locator('.status-held').count(), 0);
    });
  });
});
