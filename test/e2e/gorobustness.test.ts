/**
 * The robustness report of a Go operator in a real VS Code (code-server) and Chromium: with the
 * sample's Go controller open, the command builds its manager and runs it on the real clock
 * against a fresh served cluster per fault class; the panel shows a row per class, names the Go
 * operator as the runtime judged and says the clock is real; a baseline that never settled leaves
 * no row marked converged. Needs Go (installed by the project's scripts); skipped without it.
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
      const baseline = await report.locator('.baseline').innerText();
      assert.match(baseline, /Baseline \(no faults\): \d+ reconciles, \d+ API calls/);
      assert.match(await report.locator('.runtime').innerText(), /Go operator/);
      // The sample hot-loops: a baseline cut off unsettled says so, and then no row claims ✓.
      if (/never settled/.test(baseline))
        assert.equal(await report.locator('tr .verdict .yes').count(), 0, baseline);
      // A row that converged had nothing go wrong: no debugger link on it.
      assert.equal(await report.locator('tr.converged a.open-debugger').count(), 0);
    });
  });
});
