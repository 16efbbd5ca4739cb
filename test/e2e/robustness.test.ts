/**
 * The robustness report in a real VS Code (code-server) and Chromium: with a manifest open in the
 * sample's workspace (a TypeScript reconciler and a Go operator) the command asks which runtime,
 * runs the reconciler through every fault class, the report panel names the runtime and shows a
 * row per class, and a row that went wrong links into the Reconcile Debugger on that case at the
 * reconcile where it did; a row that converged offers no link.
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

  it('asks which runtime with a YAML file active, and shows a row per fault class', async () => {
    await withScreenshotOnFailure(wb, 'robustness-report', async () => {
      await wb.openFile('apps_v1_webapp_shop.yaml');
      await wb.runCommand('Reconcile Studio: Run Robustness Report');
      await wb.page
        .locator('.quick-input-list .monaco-list-row', { hasText: 'TypeScript reconciler' })
        .first()
        .click({ timeout: 60_000 });
      report = await wb.findFrame('#app[data-status]', 60_000);
      assert.match(await report.locator('.runtime').innerText(), /TypeScript reconciler/);
      await report.locator('#app[data-status="done"]').waitFor({ timeout: 240_000 });
      const rows = report.locator('table.report tbody tr');
      assert.equal(await rows.count(), 9);
      const row = (fault: string) => report.locator(`tr[data-fault="${fault}"]`);
      assert.equal(await row('write-conflict').locator('.verdict').innerText(), '✓');
      assert.equal(await row('status-500').locator('.verdict').innerText(), '✓');
      assert.equal(await row('stale-cache').locator('.verdict').innerText(), '✗');
      // Converged rows had nothing go wrong: no debugger link.
      assert.equal(await row('write-conflict').locator('a.open-debugger').count(), 0);
      assert.equal(await row('status-500').locator('a.open-debugger').count(), 0);
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
        .locator('tr[data-fault="stale-cache"] a.open-debugger')
        .click({ timeout: 10_000 });
      const dbg = await wb.findFrame('.pipeline', 60_000);
      await dbg
        .locator('.status', {
          hasText: /^Robustness report, Stale cache \(watch events 2 s late\): reconcile #\d+/,
        })
        .waitFor({ timeout: 30_000 });
      // The shown reconcile is the first the stale cache failed: its write refused with 409.
      await dbg.getByText('409').first().waitFor({ timeout: 10_000 });
      await wb.screenshot('robustness-debugger');
    });
  });
});
