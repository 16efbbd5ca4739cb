/**
 * The Reconcile Debugger at 800 px wide — half of a 1600 px screen, where a user keeps the panel
 * beside their code — in a real VS Code (code-server) and Chromium, judged by the browser's own
 * layout: the header is one line, the fault buttons one row, the findings one line each above the
 * controls, the panes the user steps with (API calls, objects) in the first tab and the charts in
 * a tab of their own, on one axis of running time where the sample's hot loop reads as a rate,
 * their titles clear of the pinned toolbar, and the tab chosen kept across a reload of the webview.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Frame } from 'playwright-core';
import {
  launchWorkbench,
  showTab,
  stepAndWait,
  withScreenshotOnFailure,
  type Workbench,
} from './workbench';

/** The webview's own width (its window's innerWidth), as in a half-width split of 1600 px. */
const WIDTH = 800;

describe('the Reconcile Debugger at 800 px wide', { timeout: 600_000 }, () => {
  let wb: Workbench;
  let panel: Frame;

  before(async () => {
    wb = await launchWorkbench({ settings: { 'reconcileStudio.cluster.podReadyDelayMs': 500 } });
  });

  after(async () => {
    await wb?.close();
  });

  it('opens held, 800 px wide, with a one-line header', async () => {
    await withScreenshotOnFailure(wb, 'layout-open', async () => {
      await wb.runCommand('Reconcile Studio: Open Reconcile Debugger');
      panel = await wb.findFrame('.pipeline', 60_000);
      await panel.locator('.status-held').waitFor({ timeout: 90_000 });
      await fitWebview(wb, panel, WIDTH);
      await assertOneLineHeader(panel);
    });
  });

  it('keeps the fault buttons on one row at a held write', async () => {
    await withScreenshotOnFailure(wb, 'layout-faults', async () => {
      // Step to the first write: the row then names the held call ("Fail the next call (create
      // deployments default/shop) with:"), its longest form.
      for (let i = 0; i < 20; i++) {
        if (await panel.locator('.fault-controls vscode-button:not([disabled])').count()) break;
        await stepAndWait(panel);
      }
      const row = panel.locator('.fault-controls');
      assert.ok(
        await row.locator('vscode-button:not([disabled])').count(),
        'held at a call a fault can be injected into',
      );
      const m = await measured(panel, () =>
        row.evaluate((el) => {
          const buttons = Array.from(el.querySelectorAll('vscode-button')).map((b) =>
            b.getBoundingClientRect(),
          );
          return {
            tops: buttons.map((r) => Math.round(r.top)),
            rightmost: Math.max(...buttons.map((r) => r.right)),
            width: document.documentElement.clientWidth,
            label: el.querySelector('.fault-target')?.getAttribute('title') ?? '',
            laid:
              (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ??
                0) > 0,
          };
        }),
      );
      console.log(`# fault row: ${JSON.stringify(m)}`);
      assert.equal(m.tops.length, 6, 'six fault buttons');
      assert.equal(new Set(m.tops).size, 1, 'every fault button on one row');
      assert.ok(m.rightmost > 0);
      assert.ok(m.rightmost <= m.width, `the last button ends at ${m.rightmost} of ${m.width} px`);
      assert.match(m.label, /The held call: \w+ [\w/]+ default\/\w+/, 'the held call is named');
      await assertOneLineHeader(panel);
    });
  });

  it('shows the findings as one line each, without pushing the controls down', async () => {
    await withScreenshotOnFailure(wb, 'layout-findings', async () => {
      await panel.getByRole('button', { name: 'Continue' }).click();
      await panel.locator('.finding-quota-conflict').waitFor({ timeout: 120_000 });
      await assertOneLineHeader(panel);
      const m = await measured(panel, () =>
        panel.evaluate(() => {
          const first = document.querySelector('.finding summary');
          const lineHeight = first ? parseFloat(getComputedStyle(first).lineHeight) : NaN;
          const summaries = Array.from(document.querySelectorAll('.finding summary')).map((s) => {
            const range = document.createRange();
            range.selectNodeContents(s);
            return new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size;
          });
          const toolbar = document.querySelector('.toolbar')!.getBoundingClientRect();
          const pipeline = document.querySelector('.pipeline')!.getBoundingClientRect();
          const findings = document.querySelector('.findings')!.getBoundingClientRect();
          return {
            lineHeight,
            summaries,
            findings: findings.height,
            pushed: pipeline.top - toolbar.bottom,
            laid:
              (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ??
                0) > 0,
          };
        }),
      );
      console.log(`# findings: ${JSON.stringify(m)}`);
      assert.ok(m.summaries.length > 0);
      assert.ok(m.lineHeight > 0, 'a finding has a line height');
      for (const lines of m.summaries) assert.equal(lines, 1, 'a finding reads as one line');
      // At most four one-line findings show before the controls (the issue saw four take 180 px;
      // more scroll inside the banner): a row is a line, its 8 px padding and 4 px gap; then the
      // 8 px above the banner and the 12 px above the phases, and 4 px to spare.
      const bound = 4 * (m.lineHeight + 12) + 24;
      assert.ok(m.pushed <= bound, `findings push the phases ${m.pushed} px down (bound ${bound})`);
    });
  });

  it('keeps the charts in a tab of their own, on one axis, under no toolbar', async () => {
    await withScreenshotOnFailure(wb, 'layout-charts', async () => {
      // The panel shows the reconcile first: its panes, no chart.
      const tops = await measured(panel, () =>
        panel.evaluate(() => ({
          ...Object.fromEntries(
            ['.tabs', '.request', '.calls', '.objects'].map((s) => [
              s,
              document.querySelector(s)?.getBoundingClientRect().top ?? NaN,
            ]),
          ),
          charts: document.querySelectorAll('.charts').length,
          selected: document.querySelector('[role="tab"][aria-selected="true"]')?.textContent,
          laid:
            (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ?? 0) >
            0,
        })),
      );
      console.log(`# reconcile tab: ${JSON.stringify(tops)}`);
      const top = tops as unknown as Record<string, number>;
      assert.equal(tops.selected, 'Reconcile', 'the panel opens on the reconcile');
      assert.equal(tops.charts, 0, 'no chart in the reconcile’s tab');
      assert.ok(top['.tabs']! < top['.request']!, 'the tabs above the reconcile');
      assert.ok(top['.calls']! > 0 && top['.objects']! > 0, 'API calls and objects shown');
      // Step-first: the held step's calls and diff before the request's facts.
      assert.ok(top['.calls']! <= top['.request']!, 'the API calls above the request');
      assert.ok(top['.objects']! <= top['.request']!, 'the objects above the request');

      await showTab(panel, 'charts');
      // With reconciles behind it, each chart has something to plot.
      await panel.locator('.chart.no-data').first().waitFor({ state: 'detached', timeout: 60_000 });
      assert.equal(await panel.locator('.calls').count(), 0, 'the charts’ tab alone');
      // Every chart on the same time axis: what uPlot set its x scale to.
      await panel.waitForFunction(
        () => document.querySelectorAll('.chart[data-x-range]').length === 4,
        undefined,
        { timeout: 30_000 },
      );
      const ranges = await panel
        .locator('.chart')
        .evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.xRange));
      console.log(`# chart x ranges: ${JSON.stringify(ranges)}`);
      assert.equal(new Set(ranges).size, 1, `one x range for every chart: ${ranges.join(' | ')}`);
      // Scrolled to a chart, its title shows below the pinned toolbar, which stays on top.
      for (const figure of await panel.locator('.chart').all()) {
        const m = await measured(panel, () =>
          figure.evaluate((el) => {
            el.scrollIntoView({ block: 'start' });
            const caption = el.querySelector('figcaption')!.getBoundingClientRect();
            const toolbar = document.querySelector('.toolbar')!;
            const bar = toolbar.getBoundingClientRect();
            const under = document.elementFromPoint(bar.left + bar.width / 2, bar.bottom - 2);
            return {
              caption: caption.top,
              bar: bar.bottom,
              onTop: toolbar.contains(under),
              laid:
                (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ??
                  0) > 0,
            };
          }),
        );
        assert.ok(
          m.caption >= m.bar,
          `a chart title at ${m.caption} px under the toolbar's ${m.bar}`,
        );
        assert.ok(m.onTop, 'the toolbar is drawn over the plots');
      }
    });
  });

  it('charts the sample’s hot loop as a rate, not as a column at t≈0', async () => {
    await withScreenshotOnFailure(wb, 'layout-rate', async () => {
      // The sample's keys requeue at once: their reconciles pile up at one instant of the
      // virtual clock, which the panel says as a rate over running time.
      const note = await panel.locator('.pile-up').first().innerText();
      console.log(`# pile-up: ${note}`);
      const m =
        /^default\/\w+: hot loop — (\d+) reconciles in 0ms of controller time, over \S+ of running time \((\d+(?:\.\d+)?)\/s\)/.exec(
          note,
        );
      assert.ok(m, `a hot loop said as a rate: ${note}`);
      assert.ok(Number(m[1]) >= 10 && Number(m[2]) > 0);
      assert.equal(await panel.locator('#tab-charts .tab-badge').innerText(), 'hot loop');
      // The rate chart's caption: each key's highest rate, above zero.
      const rate = await panel
        .locator('.chart figcaption', { hasText: 'Reconcile rate' })
        .innerText();
      console.log(`# ${rate}`);
      const peaks = [...rate.matchAll(/at most (\d+(?:\.\d+)?)\/s/g)].map((p) => Number(p[1]));
      assert.ok(peaks.length > 0 && peaks.some((p) => p > 0), `a rate above zero: ${rate}`);
      // The reconciles are at as many running times as there were reconciles, not at one
      // instant: the count-up chart has more x values than a start and a now.
      const perKey = panel.locator('.chart', { hasText: 'Reconciles per key' });
      const xs = Number(await perKey.getAttribute('data-xs'));
      console.log(`# reconciles per key at ${xs} running times`);
      assert.ok(xs >= Number(m[1]), `the pile-up's reconciles at distinct running times (${xs})`);
      await panel.locator('.charts').evaluate((el) => el.scrollIntoView({ block: 'start' }));
      await wb.screenshot('layout-charts-800');
      await panel.evaluate(() => window.scrollTo(0, 0));
      await showTab(panel, 'reconcile');
      await wb.screenshot('layout-800');
    });
  });

  it('keeps the Charts tab across a reload of the webview', async () => {
    await withScreenshotOnFailure(wb, 'layout-tab-reload', async () => {
      await showTab(panel, 'charts');
      // Marks the panel's page, so the one found after the reload is not this one.
      await panel.evaluate(() => (document.body.dataset.beforeReload = 'true'));
      await wb.runCommand('Developer: Reload Webviews');
      // The reloaded panel is a new page: it opens on the tab it saved. Read in each frame as
      // it is at the time (the webview's frames are replaced while it reloads).
      let selected: string | null = null;
      for (let i = 0; i < 240 && selected === null; i++) {
        for (const frame of wb.page.frames()) {
          selected ??= await frame
            .evaluate(() =>
              document.body.dataset.beforeReload
                ? null
                : (document.querySelector('#tab-charts')?.getAttribute('aria-selected') ?? null),
            )
            .catch(() => null);
        }
        if (selected === null) await wb.page.waitForTimeout(250);
      }
      assert.equal(selected, 'true');
      panel = await wb.findFrame('body:not([data-before-reload]) .tabpanel-charts', 30_000);
      await showTab(panel, 'reconcile');
    });
  });

  it('narrower than 800 px, wraps its rows rather than hide the status or a button', async () => {
    await withScreenshotOnFailure(wb, 'layout-narrow', async () => {
      // Beside the source a Go debug stop opens, the panel may get 500 px.
      await fitWebview(wb, panel, 500);
      const m = await measured(panel, () =>
        panel.evaluate(() => {
          const width = document.documentElement.clientWidth;
          const controls = Array.from(
            document.querySelectorAll('.toolbar vscode-button, .fault-controls vscode-button'),
          ).map((b) => b.getBoundingClientRect());
          const status = document.querySelector('.toolbar .status')?.getBoundingClientRect();
          return {
            width,
            rightmost: Math.max(...controls.map((r) => r.right)),
            status: status?.width ?? 0,
            laid:
              (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ??
                0) > 0,
          };
        }),
      );
      console.log(`# at 500 px: ${JSON.stringify(m)}`);
      assert.ok(m.rightmost <= m.width, `a button ends at ${m.rightmost} of ${m.width} px`);
      assert.ok(m.status >= 100, `the status keeps ${m.status} px`);
    });
  });

  it('reads the timeline of a hot loop apart', async () => {
    await withScreenshotOnFailure(wb, 'layout-timeline', async () => {
      const whens = await panel.locator('.timeline .row-head .when').allInnerTexts();
      console.log(`# timeline: ${JSON.stringify(whens)}`);
      assert.ok(whens.length > 1, 'more than one row in the timeline');
      assert.ok(new Set(whens).size > 1, `rows at different times: ${whens.join(', ')}`);
    });
  });
});

/** Resizes the browser until the webview's window is `width` px wide (the workbench around it varies). */
async function fitWebview(wb: Workbench, frame: Frame, width: number): Promise<void> {
  let inner = 0;
  for (let i = 0; i < 6; i++) {
    inner = await frame.evaluate(() => window.innerWidth);
    if (inner === width) return;
    const vp = wb.page.viewportSize()!;
    await wb.page.setViewportSize({ width: vp.width + width - inner, height: vp.height });
    await frame
      .waitForFunction((w) => window.innerWidth !== w, inner, { timeout: 10_000 })
      .catch(() => undefined);
  }
  assert.equal(inner, width, 'the webview is as wide as asked');
}

/**
 * A measurement taken while the webview is laid out: a webview hidden for a moment (the
 * workbench may hide and show it again while the session runs) measures zero everywhere, so a
 * measurement that says so (`laid` false, read in the same pass) is taken again once the
 * toolbar's buttons have a size.
 */
async function measured<T extends { laid: boolean }>(
  frame: Frame,
  measure: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const m = await measure();
    if (m.laid) return m;
    assert.ok(attempt < 10, 'the webview is laid out');
    await frame.waitForFunction(
      () =>
        (document.querySelector('.toolbar vscode-button')?.getBoundingClientRect().width ?? 0) > 0,
      undefined,
      { timeout: 30_000 },
    );
  }
}

/** The toolbar is one row and its status one line of text. */
async function assertOneLineHeader(frame: Frame): Promise<void> {
  const m = await measured(frame, () =>
    frame.locator('.toolbar').evaluate((bar) => {
      const children = Array.from(bar.children).filter((c) => c.getBoundingClientRect().width > 0);
      const status = bar.querySelector('.status')!;
      const range = document.createRange();
      range.selectNodeContents(status);
      return {
        tops: children.map((c) => Math.round(c.getBoundingClientRect().top)),
        bottoms: children.map((c) => Math.round(c.getBoundingClientRect().bottom)),
        statusLines: new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top))).size,
        status: status.textContent,
        right: bar.getBoundingClientRect().right,
        width: document.documentElement.clientWidth,
        laid: (bar.querySelector('vscode-button')?.getBoundingClientRect().width ?? 0) > 0,
      };
    }),
  );
  console.log(`# header: ${JSON.stringify(m)}`);
  assert.ok(m.tops.length >= 4, `the toolbar's buttons are laid out: ${JSON.stringify(m)}`);
  const maxTop = Math.max(...m.tops);
  const minBottom = Math.min(...m.bottoms);
  // One row: every item overlaps every other vertically.
  assert.ok(maxTop < minBottom, `the header's items share one row: ${JSON.stringify(m)}`);
  assert.ok(m.statusLines <= 1, `the status is one line: ${m.status}`);
}
