/**
 * The robustness report of a Go operator in a real VS Code (code-server) and Chromium: with the
 * sample's Go controller open, the command builds its manager and runs it on the real clock
 * against a fresh served cluster per fault class; the panel shows a row per class and says the
 * clock is real. Needs Go (installed by the project's scripts); skipped without it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

describe('the robustness report of the sample Go operator', { timeout: 600_000 }, async () => {
  const skip = checkGoVersion(await goVersion());
  let wb: Workbench;

  before(async () => {
    if (!skip) wb = await launchWorkbench();
  });

  after(async () => {
    await wb?.close();
  });

  it('runs the Go manager once per fault class and shows a row per class', { skip }, async () => {
    await withScreenshotOnFailure(wb, 'go-robustness-report', async () => {
      await wb.openFile('webapp_controller.go');
      await wb.runCommand('Reconcile Studio: Run Robustness Report');
      const report = await wb.findFrame('#app[data-status]', 120_000);
      await report.locator('.note', { hasText: /real clock/i }).waitFor({ timeout: 120_000 });
      await report.locator('#app[data-status="done"]').waitFor({ timeout: 420_000 });
      assert.equal(await report.locator('table.report tbody tr').count(), 9);
      assert.match(
        await report.locator('.baseline').innerText(),
        /Baseline \(no faults\): \d+ reconciles, \d+ API calls/,
      );
    });
  });
});
