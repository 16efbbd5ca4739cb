/**
 * Run Go Operator in a real VS Code: the sample's own Go manager (`go run ./cmd`) runs against
 * the embedded fake cluster; its build shows in the status bar while it goes; its WebApps go Running in the Custom Resources view, the Work Queue
 * shows its controller (from its logs and /metrics), and the quota conflict appears as a finding;
 * a WebApp expands to what it owns and the Events about them, and Edit YAML opens a copy named
 * after it; Stop Go Operator ends it, says so in its output and clears its Work Queue entries; a
 * wrong type typed into that copy is marked on its line in the cluster's words. Skipped where Go
 * is missing.
 */
import assert from 'node:assert/strict';
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import {
  launchWorkbench,
  recordStatusBar,
  recordTexts,
  withScreenshotOnFailure,
  type Workbench,
} from './workbench';

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
        // The build shows in the status bar while it goes ("Building: 12 packages, 0:41 — …"):
        // watched from before the command, since a warm build cache can make it brief.
        const builds = await recordStatusBar(wb, /Building:/);
        // The Work Queue says so too, rather than that no reconciler is running.
        const queued = await recordTexts(wb, '.sidebar', '.monaco-list-row', /Building:/);
        await wb.runCommand('Reconcile Studio: Run Go Operator');
        await builds.waitFor(/Building:/, 120_000);
        assert.match((await builds.seen())[0] ?? '', /Building: \d+ packages?, \d+:\d\d/);
        await queued.waitFor(/Building: \d+ packages?, \d+:\d\d/, 60_000);
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
    'expands a WebApp to the Deployment it owns and that to its ReplicaSet and Events; Edit YAML opens a named copy',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-operator-tree', async () => {
        const sidebar = wb.page.locator('.sidebar');
        const row = (level: number, text: RegExp) =>
          sidebar.locator(`.monaco-list-row[aria-level="${level}"]`, { hasText: text }).first();
        const expand = async (level: number, text: RegExp) => {
          const r = row(level, text);
          if ((await r.getAttribute('aria-expanded')) !== 'true')
            await r.locator('.monaco-tl-twistie').click();
        };
        // Kind → namespace → WebApp → what it owns → what that owns and the Events about it.
        // Whichever WebApp got its Deployment: the sample's quota bug lets only one of them have
        // one, and which is a race between the two reconciles. (Its operator then updates that
        // Deployment in a loop — each update drops the revision annotation, which bumps the
        // generation, as kube-apiserver does — so its rows change under the test.)
        const owner = sidebar.locator('.monaco-list-row[aria-level="3"][aria-expanded]').first();
        await owner.waitFor({ timeout: 60_000 });
        const name = (await owner.locator('.label-name').first().innerText()).trim();
        const app = new RegExp(`^${name}`);
        await expand(3, app);
        await row(4, new RegExp(`^Deployment ${name}`)).waitFor({ timeout: 60_000 });
        await expand(4, new RegExp(`^Deployment ${name}`));
        await row(5, new RegExp(`^ReplicaSet ${name}-`)).waitFor({ timeout: 60_000 });
        await row(5, /^ScalingReplicaSet/).waitFor({ timeout: 60_000 });
        await row(3, app).click({ button: 'right' });
        const edit = wb.page
          .locator('.context-view .action-label', { hasText: 'Edit YAML' })
          .first();
        await edit.click();
        // The operator's hot loop redraws the tree under the menu, and a click can land while the
        // menu is re-laid: the item is focused by then, so Enter takes it.
        await edit
          .waitFor({ state: 'detached', timeout: 5_000 })
          .catch(() => wb.page.keyboard.press('Enter'));
        await wb.page
          .locator('.tab', { hasText: `webapp-default-${name}.yaml` })
          .first()
          .waitFor({ timeout: 30_000 });
        assert.equal(await wb.page.locator('.tab', { hasText: /Untitled-\d/ }).count(), 0);
      });
    },
  );

  it(
    'stops on Stop Go Operator: a stopped line in its output, its controller and findings gone from the Work Queue',
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-operator-stop', async () => {
        const sidebar = wb.page.locator('.sidebar');
        await wb.runCommand('Reconcile Studio: Stop Go Operator');
        // The output channel's lines are split into spans with non-breaking spaces: match the
        // editor's lines as a whole.
        const stopped = wb.page
          .locator('.part.panel .view-lines')
          .filter({ hasText: /Go\soperator\sin\s\S+\sstopped\s\([\d.]+\ss\)/ })
          .first();
        await stopped.waitFor({ timeout: 30_000 });
        const text = (await stopped.textContent())?.replace(/\s+/g, ' ') ?? '';
        // Reported, never asserted: the time the extension measured from Stop to the group gone.
        console.log(
          `# Stop Go Operator: the manager stopped in ${/stopped \(([\d.]+) s\)/.exec(text)?.[1]} s`,
        );
        await sidebar.getByText('Findings', { exact: true }).waitFor({ state: 'detached' });
        await sidebar.getByText('webapp', { exact: true }).waitFor({ state: 'detached' });
        // The cluster and its objects stay.
        await sidebar.getByText('shop', { exact: true }).first().waitFor();
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

  it(
    "marks a wrong type typed into Edit YAML's copy on its line, in the cluster's words",
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'go-operator-edit-yaml', async () => {
        // The copy the second test opened; the cluster still serves the WebApp CRD.
        await wb.page
          .locator('.tab', { hasText: /webapp-default-.*\.yaml/ })
          .first()
          .click();
        const replicas = wb.page
          .locator('.part.editor .monaco-editor .view-line')
          .filter({ hasText: /^\s*replicas:\s*\d+\s*$/ })
          .first();
        await replicas.click();
        await wb.page.keyboard.press('End');
        await wb.page.keyboard.press('Shift+Home');
        await wb.page.keyboard.type('replicas: two');
        const cursor = await wb.page
          .locator('.statusbar-item', { hasText: /Ln \d+, Col \d+/ })
          .first()
          .innerText();
        const line = /Ln (\d+)/.exec(cursor)?.[1];
        assert.ok(line, `no cursor position in the status bar: ${cursor}`);
        await wb.runCommand('View: Focus Problems');
        const problem = wb.page
          .locator('.markers-panel .monaco-list-row', {
            hasText:
              /spec\.replicas: Invalid value: "string": spec\.replicas in body must be of type integer: "string"/,
          })
          .first();
        await problem.waitFor({ timeout: 30_000 });
        assert.match(await problem.innerText(), new RegExp(`Ln ${line}\\b`));
      });
    },
  );
});
