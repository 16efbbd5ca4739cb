/**
 * A new user opens the first-run walkthrough in a real VS Code (code-server): its four steps are
 * shown; the first's button starts the fake cluster with the sample and ticks it; the second's
 * button opens the Reconcile Debugger held at the first phase and ticks that step. The log says
 * the Go operator's build cache was warmed in the background when the workspace opened.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkGoVersion, goVersion } from '../../src/runtime/gotoolchain';
import { launchWorkbench, withScreenshotOnFailure, type Workbench } from './workbench';

const TITLE = 'Reconcile Studio: from a reconcile to its first finding';
/** A step of the walkthrough, by its id in package.json (a step's text can name another's). */
const STEP = (id: string) =>
  `.getting-started-step:has(h3[x-step-title-for="reconcile-studio.reconcile-studio#firstFinding#${id}"])`;
const step = (wb: Workbench, id: string) => wb.page.locator(STEP(id));
/** A step's checkbox, ticked (VS Code ticks it at one of the step's completion events). */
const DONE = (id: string) =>
  `[x-dispatch="toggleStepCompletion:reconcile-studio.reconcile-studio#firstFinding#${id}"][aria-checked="true"]`;

describe('the first-run walkthrough', { timeout: 300_000 }, async () => {
  const goProblem = checkGoVersion(await goVersion());
  let wb: Workbench;

  before(async () => {
    wb = await launchWorkbench();
    await wb.openView('Reconcile Studio');
  });

  after(async () => {
    await wb?.close();
  });

  it('lists its four steps; the first starts the fake cluster and is ticked', async () => {
    await withScreenshotOnFailure(wb, 'walkthrough-open', async () => {
      await wb.runCommand('Welcome: Open Walkthrough...');
      await wb.page
        .locator('.quick-input-list .monaco-list-row', { hasText: TITLE })
        .first()
        .click();
      const steps = wb.page.locator('.getting-started-step');
      await steps.first().waitFor({ timeout: 30_000 });
      const titles = await wb.page.locator('.getting-started-step .step-title').allInnerTexts();
      assert.deepEqual(
        titles.map((t) => t.trim()),
        [
          'The fake cluster',
          'Step a TypeScript reconciler',
          'Debug your Go operator',
          'See the first finding',
        ],
      );
      const first = step(wb, 'cluster');
      await first.locator('.step-title').click();
      await first.getByRole('button', { name: 'Start Fake Cluster' }).click();
      await wb.page
        .locator('.sidebar')
        .getByText('shop', { exact: true })
        .first()
        .waitFor({ timeout: 60_000 });
      await wb.page.locator(DONE('cluster')).waitFor({ state: 'attached', timeout: 30_000 });
      await wb.screenshot('walkthrough');
    });
  });

  it('opens the Reconcile Debugger held at the first phase from its step, and ticks it', async () => {
    await withScreenshotOnFailure(wb, 'walkthrough-debugger', async () => {
      const second = step(wb, 'debugger');
      await second.locator('.step-title').click();
      await second.getByRole('button', { name: 'Open Reconcile Debugger' }).click();
      const panel = await wb.findFrame('.status-held', 120_000);
      assert.match(await panel.locator('.status').innerText(), /Held at/);
      // The panel opened over the walkthrough: back to it, to see the step ticked.
      await wb.page.locator('.tab', { hasText: 'Walkthrough' }).first().click();
      await wb.page.locator(DONE('debugger')).waitFor({ state: 'attached', timeout: 30_000 });
    });
  });

  it(
    "says in its log that the operator's Go build cache was warmed when the workspace opened",
    { skip: goProblem },
    async () => {
      await withScreenshotOnFailure(wb, 'walkthrough-warmup', async () => {
        await wb.runCommand('Reconcile Studio: Show Output');
        // The output's lines are split into spans with non-breaking spaces: match whole lines.
        const warmed = wb.page
          .locator('.part.panel .view-lines')
          .filter({
            hasText:
              /Go\sbuild\scache\swarmed\sfor\s\S+:\srun\sbuild\s[\d.]+\w+,\sdebug\sbuild\s[\d.]+\w+/,
          })
          .first();
        await warmed.waitFor({ timeout: 240_000 });
        const text = (await warmed.textContent())?.replace(/\s+/g, ' ') ?? '';
        console.log(
          `# ${/Go build cache warmed for \S+: run build [\d.]+\w+, debug build [\d.]+\w+/.exec(text)?.[0]}`,
        );
      });
    },
  );
});
