/**
 * Retakes the README's screenshots (docs/images) from the current build, as a new user sees the
 * sample: code-server with the packaged VSIX, driven by Playwright in Chromium (the end-to-end
 * tests' workbench, test/e2e/workbench.ts). `npm run screenshots` packages the VSIX first.
 *
 * Each picture is cropped to what its caption shows and kept small (the script says if one
 * passes 200 KB). The Go operator's picture needs Go; without it that one is left as it was.
 * Pass names to retake only those: `npm run screenshots -- debugger sidebar`.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { checkGoVersion, goVersion } from '../src/runtime/gotoolchain';
import {
  launchWorkbench,
  repoRoot,
  showTab,
  stepAndWait,
  type Workbench,
} from '../test/e2e/workbench';

const IMAGES = join(repoRoot, 'docs', 'images');
const LIMIT = 200 * 1024;
const VIEWPORT = { width: 1280, height: 800 };
const ALL = ['debugger', 'sidebar', 'debugger-charts', 'problems', 'go-operator'] as const;
type Name = (typeof ALL)[number];

const asked = process.argv
  .slice(2)
  .filter((a): a is Name => (ALL as readonly string[]).includes(a));
const wanted = new Set<Name>(asked.length ? asked : ALL);

async function main(): Promise<void> {
  if (['debugger', 'sidebar', 'debugger-charts', 'problems'].some((n) => wanted.has(n as Name)))
    await typescriptSession();
  if (wanted.has('go-operator')) {
    const problem = checkGoVersion(await goVersion());
    if (problem) console.log(`go-operator.png left as it was: ${problem}`);
    else await goOperator();
  }
}

/** The sample's TypeScript reconciler in the debugger, the sidebar, the charts, the diagnostics. */
async function typescriptSession(): Promise<void> {
  const wb = await launchWorkbench({
    settings: { 'reconcileStudio.cluster.podReadyDelayMs': 500 },
  });
  try {
    await wb.page.setViewportSize(VIEWPORT);
    await wb.openView('Reconcile Studio');
    await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
    let panel = await wb.findFrame('.pipeline', 60_000);
    await panel.locator('.status-held').waitFor({ timeout: 90_000 });
    // Held at the first write: the request, its reads and the diff it is about to write.
    for (let i = 0; i < 20; i++) {
      if ((await panel.locator('.phase.current').getAttribute('data-phase')) === 'write') break;
      await stepAndWait(panel);
    }
    await quiet(wb);
    if (wanted.has('debugger')) await save(wb.page, 'debugger');

    // On to the result: the key waits on its requeueAfter in the Work Queue.
    for (let i = 0; i < 20; i++) {
      if ((await panel.locator('.phase.current').getAttribute('data-phase')) === 'result') break;
      await stepAndWait(panel);
    }
    await stepAndWait(panel);
    const queue = wb.page.locator('.sidebar .pane', { hasText: 'Work Queue' }).last();
    await queue
      .locator('.monaco-list-row', { hasText: /in [\d.]+s · requeueAfter/ })
      .first()
      .waitFor({ timeout: 30_000 });
    await quiet(wb);
    if (wanted.has('sidebar')) await save(wb.page, 'sidebar', wb.page.locator('.part.sidebar'));

    // Continue into the sample's hot loop and quota conflict: findings, timeline and charts.
    await panel.getByRole('button', { name: 'Continue' }).click();
    await panel.locator('.finding-quota-conflict').waitFor({ timeout: 120_000 });
    // The charts have a tab of their own.
    await showTab(panel, 'charts');
    await panel.locator('.chart.no-data').first().waitFor({ state: 'detached', timeout: 60_000 });
    panel = await wb.findFrame('.charts');
    await quiet(wb);
    if (wanted.has('debugger-charts')) {
      await panel.locator('.tabs').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await save(wb.page, 'debugger-charts', panel.locator('.tabs'), panel.locator('.charts'));
      await panel.evaluate(() => window.scrollTo(0, 0));
    }
    await showTab(panel, 'reconcile');

    if (wanted.has('problems')) {
      await wb.openFile('webapp_controller.go');
      await wb.runCommand('View: Focus Problems');
      const problems = wb.page.locator('.markers-panel');
      await problems
        .getByText(/status-error-ignored/)
        .first()
        .waitFor({ timeout: 60_000 });
      await problems
        .getByText(/update-unfetched/)
        .first()
        .waitFor();
      // The editor at the first problem's line, its squiggle and light bulb in sight.
      await problems
        .locator('.monaco-list-row', { hasText: /status-error-ignored/ })
        .first()
        .getByText(/^The error of Status\(\)\.Update is dropped/)
        .click();
      await wb.page
        .locator('.monaco-editor .view-line')
        .filter({ hasText: /_\s=\sr\.Status\(\)\.Update/ })
        .first()
        .waitFor({ timeout: 15_000 });
      await quiet(wb);
      await save(
        wb.page,
        'problems',
        wb.page.locator('.part.editor'),
        wb.page.locator('.part.panel'),
      );
    }
  } finally {
    await wb.close();
  }
}

/** The sample's Go manager under Run Go Operator: WebApps, its controller's queue, the quota finding. */
async function goOperator(): Promise<void> {
  const wb = await launchWorkbench();
  try {
    await wb.page.setViewportSize(VIEWPORT);
    await wb.openView('Reconcile Studio');
    await wb.runCommand('Reconcile Studio: Run Go Operator');
    const sidebar = wb.page.locator('.sidebar');
    await sidebar.getByText('webapp', { exact: true }).waitFor({ timeout: 600_000 });
    await sidebar
      .getByText(/Running/)
      .first()
      .waitFor({ timeout: 120_000 });
    await sidebar
      .getByText(/quota-conflict default\/(shop|blog)/)
      .first()
      .waitFor({ timeout: 60_000 });
    await quiet(wb);
    // The sidebar holds all the caption names; the manager's output is in the panel below it.
    await save(wb.page, 'go-operator', wb.page.locator('.part.sidebar'));
  } finally {
    await wb.close();
  }
}

/** No toasts or hovers over the picture. */
async function quiet(wb: Workbench): Promise<void> {
  await wb.runCommand('Notifications: Clear All Notifications');
  // The pointer rests on the title bar's empty left part, where nothing shows a hover.
  await wb.page.mouse.move(250, 16);
  await wb.page
    .locator('.monaco-hover, .workbench-hover')
    .first()
    .waitFor({ state: 'hidden', timeout: 10_000 })
    .catch(() => undefined);
  await wb.page
    .locator('.notification-toast')
    .first()
    .waitFor({ state: 'detached', timeout: 10_000 })
    .catch(() => undefined);
}

/**
 * Saves docs/images/NAME.png: the whole window, or the box around `parts` (elements of the page
 * or of a webview's frame: their boxes are in the page's coordinates).
 */
async function save(page: Page, name: Name, ...parts: Locator[]): Promise<void> {
  const path = join(IMAGES, `${name}.png`);
  if (parts.length === 0) await page.screenshot({ path });
  else {
    const boxes = await Promise.all(parts.map((p) => p.boundingBox()));
    const shown = boxes.filter((b) => b !== null);
    if (shown.length === 0) throw new Error(`${name}: nothing to crop to`);
    const vp = page.viewportSize() ?? VIEWPORT;
    const x = Math.max(0, Math.min(...shown.map((b) => b.x)));
    const y = Math.max(0, Math.min(...shown.map((b) => b.y)));
    const right = Math.min(vp.width, Math.max(...shown.map((b) => b.x + b.width)));
    const bottom = Math.min(vp.height, Math.max(...shown.map((b) => b.y + b.height)));
    await page.screenshot({ path, clip: { x, y, width: right - x, height: bottom - y } });
  }
  const size = statSync(path).size;
  console.log(`${name}.png: ${Math.round(size / 1024)} KB${size > LIMIT ? ' — over 200 KB' : ''}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
