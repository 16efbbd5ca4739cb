import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

describe('the packaged extension in code-server', { timeout: 240_000 }, () => {
  let wb: Workbench;

  before(async () => {
    wb = await launchWorkbench();
  });

  after(async () => {
    await wb?.close();
  });

  it('shows the Reconcile Studio container with both views and their welcome content', async () => {
    await withScreenshotOnFailure(wb, 'smoke-views', async () => {
      await wb.openView('Reconcile Studio');
      const sidebar = wb.page.locator('.sidebar');
      await sidebar.getByText('Custom Resources', { exact: true }).waitFor({ timeout: 30_000 });
      await sidebar.getByText('Work Queue', { exact: true }).waitFor();
      await sidebar.getByText(/No cluster is running/).waitFor();
      await sidebar.getByRole('button', { name: 'Start Fake Cluster' }).first().waitFor();
      await wb.screenshot('sidebar-welcome');
    });
  });

  it('runs a command from the palette: Show Output reveals the activation log', async () => {
    await withScreenshotOnFailure(wb, 'smoke-command', async () => {
      await wb.runCommand('Reconcile Studio: Show Output');
      // The log line is split into coloured spans, so match the editor's lines as a whole.
      const lines = wb.page
        .locator('.part.panel .view-lines')
        .filter({ hasText: /Reconcile\sStudio\sactivated\sin\s[\d.]+\sms/ });
      await lines.first().waitFor({ timeout: 30_000 });
      assert.equal(await lines.count(), 1);
      // Reported, never asserted: the extension's own measure of activate().
      const text = (await lines.first().textContent())?.replace(/\s+/g, ' ') ?? '';
      console.log(`# ${/activated in [\d.]+ ms/.exec(text)?.[0] ?? 'activation time not found'}`);
    });
  });
});
