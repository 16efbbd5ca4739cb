/**
 * The robustness report in a real VS Code (code-server) and Chromium: the command runs the
 * sample's reconciler through every fault class, the report panel shows a row per class, and a
 * row's link opens the Reconcile Debugger on that case at the reconcile where it went wrong.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

describe('the robustness report on the sample operator', { timeout: 400_000 }, () => {
  let wb: Workbench;
  let report: Frame;

  before(async () => {
    wb = await launchWorkbench();
  });

  after(async () => {
    await wb?.close();
  });

  it('runs from the palette and shows a row per fault class', async () => {
    await withScreenshotOnFailure(wb, 'robustness-report', async () => {
      await wb.runCommand('Reconcile Studio: Run Robustness Report');
      report = await wb.findFrame('#app[data-status]', 60_000);
      await report.locator('#app[data-status="done"]').waitFor({ timeout: 240_000 });
      const rows = report.locator('table.report tbody tr');
      assert.equal(await rows.count(), 9);
      const row = (fault: string) => report.locator(`tr[data-fault="${fault}"]`);
      assert.equal(await row('write-conflict').locator('.verdict').innerText(), '✓');
      assert.equal(await row('status-500').locator('.verdict').innerText(), '✓');
      assert.equal(await row('stale-cache').locator('.verdict').innerText(), '✗');
      assert.match(await row('stale-cache').locator('.diff').innerText(), /\.status\./);
      assert.match(
        await report.locator('.baseline').innerText(),
        /Baseline \(no faults\): \d+ reconciles, \d+ API calls/,
      );
      await wb.screenshot('robustness-report');
    });
  });

  it("opens the debugger on a case's recorded run at the reconcile where it went wrong", async () => {
    await withScreenshotOnFailure(wb, 'robustness-debugger', async () => {
      await report
        .locator('tr[data-fault="status-500"] a.open-debugger')
        .click({ timeout: 10_000 });
      const dbg = await wb.findFrame('.pipeline', 60_000);
      await dbg
        .locator('.status', {
          hasText: /^Robustness report, 5xx on status \(500\): reconcile #\d+/,
        })
        .waitFor({ timeout: 30_000 });
      // The shown reconcile is the one the injected 500 on its status write failed.
      await dbg.getByText('500 (fault status-500)').first().waitFor({ timeout: 10_000 });
      await wb.screenshot('robustness-debugger');
    });
  });
});
