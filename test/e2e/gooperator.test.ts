/**
 * Run Go Operator in a real VS Code: the sample's own Go manager (`go run ./cmd`) runs against
 * the embedded fake cluster; its WebApps go Running in the Custom Resources view, the Work Queue
 * shows its controller (from its logs and /metrics), and the quota conflict appears as a finding.
 * Skipped where Go is missing.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

describe('Run Go Operator', { timeout: 400_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let wb: Workbench;

  before(async () => {
    if (goProblem) return;
    wb = await launchWorkbench();
    await wb.openView('Reconcile Studio');
  });

  after(async () => {
    await wb?.close();
  });

  it(
    'runs the sample manager: WebApps Running, its controller in the Work Queue, the quota finding',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-operator', async () => {
        await wb.runCommand('Reconcile Studio: Run Go Operator');
        const sidebar = wb.page.locator('.sidebar');
        // The controller's name comes from its own logs: controller-runtime's, not ours.
        await sidebar.getByText('webapp', { exact: true }).waitFor({ timeout: 240_000 });
        await sidebar.getByText('shop', { exact: true }).first().waitFor({ timeout: 60_000 });
        await sidebar
          .getByText(/Running/)
          .first()
          .waitFor({ timeout: 120_000 });
        await sidebar.getByText('Findings', { exact: true }).waitFor({ timeout: 60_000 });
        await sidebar
          .getByText(/quota-conflict default\/(shop|blog)/)
          .first()
          .waitFor({ timeout: 60_000 });
        await wb.screenshot('go-operator');
      });
    },
  );

  it(
    'puts a build error in Problems at its file and line, and keeps the cluster and its objects',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-operator-build-error', async () => {
        appendFileSync(
          join(wb.workspace, 'internal', 'controller', 'webapp_controller.go'),
          '\nvar brokenOnPurpose int = undefinedOnPurpose\n',
        );
        await wb.runCommand('Reconcile Studio: Run Go Operator');
        await wb.page
          .getByText(/the Go operator did not build/)
          .first()
          .waitFor({ timeout: 240_000 });
        await wb.runCommand('View: Focus Problems');
        const problems = wb.page.locator('.markers-panel');
        await problems
          .getByText(/undefined: undefinedOnPurpose/)
          .first()
          .waitFor({ timeout: 30_000 });
        await problems
          .getByText(/webapp_controller\.go/)
          .first()
          .waitFor();
        // The cluster is still there with the WebApps the manager reconciled.
        await wb.page.locator('.sidebar').getByText('shop', { exact: true }).first().waitFor();
      });
    },
  );
});
