/**
 * Run Go Operator against a developer's own cluster in a real VS Code (code-server): the
 * kubeconfig code-server gets has two contexts, the second a running `reconcile-studio serve`
 * (standing in for kind or a dev cluster). The user picks that context in the status bar, runs the
 * sample's Go manager there through the recording proxy (allowing writes at the one
 * confirmation), and the Work Queue shows its controller and the quota conflict that cluster's
 * ReplicaSet controller reports in FailedCreate Events — read from that cluster while the manager
 * runs. Stop Go Operator takes both away. Skipped where Go is missing.
 */
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { serve, ROOT, type Served } from '../integration/serve';
import { pickContext, twoContexts } from './contexts';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

const SECOND = 'dev-cluster';

describe('Run Go Operator against a second kubeconfig context', { timeout: 600_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let served: Served;
  let wb: Workbench;

  before(async () => {
    if (goProblem) return;
    served = await serve(['--manifests', join(ROOT, 'samples/quota-operator/config')]);
    wb = await launchWorkbench({ env: { KUBECONFIG: twoContexts(served, SECOND) } });
    await wb.openView('Reconcile Studio');
  });

  after(async () => {
    await wb?.close();
    await served?.stop();
  });

  it(
    'shows the quota conflict from that cluster’s FailedCreate Events as a finding',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'contextgooperator', async () => {
        await pickContext(wb, SECOND);
        await wb.runCommand('Reconcile Studio: Run Go Operator');
        // The one confirmation of writes to a real cluster, per context.
        const allow = wb.page.getByRole('button', { name: `Allow writes to ${SECOND}` });
        await allow.waitFor({ state: 'visible', timeout: 120_000 });
        await allow.click();
        const sidebar = wb.page.locator('.sidebar');
        // The controller's name comes from its own logs, its calls from the proxy's record.
        await sidebar.getByText('webapp', { exact: true }).waitFor({ timeout: 300_000 });
        await sidebar.getByText('Findings', { exact: true }).waitFor({ timeout: 120_000 });
        // The finding's message names the Event: no call of the operator's met the quota.
        await sidebar
          .locator('.monaco-list-row', { hasText: /quota-conflict default\/(shop|blog)/ })
          .filter({ hasText: /FailedCreate/ })
          .first()
          .waitFor({ timeout: 120_000 });
        await wb.screenshot('contextgooperator');
      });
    },
  );

  it(
    'stops on Stop Go Operator: its findings leave the Work Queue',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'contextgooperator-stop', async () => {
        await wb.runCommand('Reconcile Studio: Stop Go Operator');
        const sidebar = wb.page.locator('.sidebar');
        await sidebar.getByText('Findings', { exact: true }).waitFor({ state: 'detached' });
        await sidebar.getByText('webapp', { exact: true }).waitFor({ state: 'detached' });
      });
    },
  );
});
