/**
 * A real VS Code for end-to-end tests: code-server with the packaged VSIX installed into a
 * throw-away profile, opened on a copy of a workspace, driven by playwright-core in Debian's
 * Chromium. Screenshots go to test-results/.
 */
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import {
  ensureCodeServer,
  freePort,
  installExtension,
  makeProfile,
  startCodeServer,
  type RunningCodeServer,
} from '../../scripts/codeserver.mjs';
import { vsixPath } from '../../scripts/package.mjs';

export const repoRoot = join(__dirname, '..', '..');
export const resultsDir = join(repoRoot, 'test-results');

export interface Workbench {
  page: Page;
  workspace: string;
  /** The throw-away profile (globalStorage lives below it). */
  userDataDir: string;
  screenshot(name: string): Promise<string>;
  runCommand(title: string): Promise<void>;
  /** Opens a workspace file in an editor through Quick Open (Ctrl+P), as a user does. */
  openFile(name: string): Promise<void>;
  openView(containerTitle: string): Promise<void>;
  findFrame(selector: string, timeoutMs?: number): Promise<Frame>;
  close(): Promise<void>;
}

export interface LaunchOptions {
  /** Folder to copy and open; defaults to the bundled sample operator. */
  workspace?: string;
  settings?: Record<string, unknown>;
  /** Leave Workspace Trust on, so the test can answer the trust prompt itself. */
  workspaceTrust?: boolean;
  /** Extra environment for code-server and its extension host (e.g. KUBECONFIG). */
  env?: Record<string, string>;
}

export async function launchWorkbench(opts: LaunchOptions = {}): Promise<Workbench> {
  const bin = ensureCodeServer();
  const scratch = mkdtempSync(join(tmpdir(), 'rs-e2e-'));
  const workspace = join(scratch, 'workspace');
  cpSync(opts.workspace ?? join(repoRoot, 'samples', 'quota-operator'), workspace, {
    recursive: true,
  });
  const extensionsDir = join(scratch, 'extensions');
  const userDataDir = join(scratch, 'user-data');
  makeProfile(userDataDir, {
    ...(opts.workspaceTrust ? { 'security.workspace.trust.enabled': true } : {}),
    ...opts.settings,
  });
  installExtension(bin, extensionsDir, vsixPath);
  const port = await freePort();
  let server: RunningCodeServer | undefined;
  let browser: Browser | undefined;
  try {
    server = await startCodeServer({
      bin,
      port,
      workspace,
      userDataDir,
      extensionsDir,
      trust: opts.workspaceTrust,
      env: opts.env,
    });
    browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    await page.goto(server.url);
    await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
    return makeWorkbench(page, workspace, userDataDir, browser, server, scratch);
  } catch (err) {
    await browser?.close();
    await server?.stop();
    throw err;
  }
}

function makeWorkbench(
  page: Page,
  workspace: string,
  userDataDir: string,
  browser: Browser,
  server: RunningCodeServer,
  scratch: string,
): Workbench {
  return {
    page,
    workspace,
    userDataDir,
    async screenshot(name) {
      mkdirSync(resultsDir, { recursive: true });
      const file = join(resultsDir, `${name}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    async openFile(name) {
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.fill(name);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
      await input.press('Enter');
    },
    async runCommand(title) {
      const input = page.locator('.quick-input-widget input');
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
      // The palette can open before the workbench has every contribution and context key (a
      // command whose enablement is not yet known is left out), or close again as an editor that
      // was opening takes the focus: ask again rather than fail.
      for (let attempt = 1; ; attempt++) {
        await page.keyboard.press('F1');
        try {
          await input.waitFor({ state: 'visible' });
          await input.fill(`>${title}`, { timeout: 10_000 });
          await row.waitFor({ state: 'visible', timeout: 15_000 });
          break;
        } catch (err) {
          if (attempt === 3) throw err;
          console.log(`# "${title}" not in the command palette yet; asking again`);
          await page.keyboard.press('Escape');
          await input.waitFor({ state: 'hidden', timeout: 5_000 }).catch(() => undefined);
        }
      }
      // The row asked for, not whichever the list has focused (a recently used command can be).
      await row.click();
    },
    async openView(containerTitle) {
      const item = page.locator(`.activitybar [aria-label^="${containerTitle}"]`).first();
      await item.waitFor({ state: 'visible', timeout: 30_000 });
      const expanded = await item.getAttribute('aria-expanded');
      if (expanded !== 'true') await item.click();
    },
    async findFrame(selector, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        for (const frame of page.frames()) {
          if (await frame.$(selector).catch(() => null)) return frame;
        }
        if (Date.now() > deadline) throw new Error(`no frame holds ${selector}`);
        await page.waitForTimeout(250);
      }
    },
    async close() {
      await browser.close();
      await server.stop();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/**
 * Records from now on each text a status bar item shows that matches `pattern` (a build item can
 * come and go between two polls); see recordTexts.
 */
export function recordStatusBar(wb: Workbench, pattern: RegExp): Promise<TextRecord> {
  return recordTexts(wb, '.part.statusbar', '.statusbar-item', pattern);
}

/**
 * Records from now on each text of an `items` element under `root` that matches `pattern`; the
 * record answers what was seen, in order, and waits for a text. (No named functions in the
 * page's code: the test's transpiler would wrap them in a helper the page does not have.)
 */
export async function recordTexts(
  wb: Workbench,
  root: string,
  items: string,
  pattern: RegExp,
): Promise<TextRecord> {
  const key = `textsSeen${Math.random().toString(36).slice(2)}`;
  await wb.page.evaluate(
    ([key, root, items, source, flags]) => {
      const seen: string[] = [];
      (window as unknown as Record<string, string[]>)[key] = seen;
      const re = new RegExp(source, flags);
      const parent = document.querySelector(root)!;
      new MutationObserver(() => {
        for (const item of Array.from(parent.querySelectorAll(items))) {
          const text = item.textContent ?? '';
          if (re.test(text) && seen.at(-1) !== text) seen.push(text);
        }
      }).observe(parent, { childList: true, subtree: true, characterData: true });
    },
    [key, root, items, pattern.source, pattern.flags] as const,
  );
  return {
    seen: () =>
      wb.page.evaluate((key) => [...(window as unknown as Record<string, string[]>)[key]!], key),
    waitFor: async (test, timeoutMs) => {
      await wb.page.waitForFunction(
        ([key, source]) =>
          (window as unknown as Record<string, string[]>)[key]!.some((t) =>
            new RegExp(source).test(t),
          ),
        [key, test.source] as const,
        { timeout: timeoutMs },
      );
    },
  };
}

export interface TextRecord {
  /** The texts seen so far, in order (a text repeated at once is recorded once). */
  seen(): Promise<string[]>;
  /** Waits until a text seen matches `test`. */
  waitFor(test: RegExp, timeoutMs: number): Promise<void>;
}

/** Runs `fn`; on failure saves a screenshot named after the test before rethrowing. */
export async function withScreenshotOnFailure<T>(
  wb: Workbench,
  name: string,
  fn: () => Promise<T>,
): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    await wb.screenshot(`failure-${name}`).catch(() => undefined);
    printExtensionLog(wb);
    throw err;
  }
}

/**
 * The end of the extension's own log ("Reconcile Studio" output channel, which VS Code keeps in a
 * file under the profile's logs), so a failure in CI says what the extension saw.
 */
function printExtensionLog(wb: Workbench): void {
  const logs = join(wb.userDataDir, 'logs');
  if (!existsSync(logs)) return;
  for (const f of readdirSync(logs, { recursive: true }).map(String)) {
    // The extension host's own log: what the extension's code printed or threw outside its channel.
    if (/exthost\d*\.log$|remoteexthost\.log$/.test(f)) {
      const lines = readFileSync(join(logs, f), 'utf8').split('\n');
      const errors = lines.filter((l) => /fake cluster:|\[error\]|Error:/.test(l)).slice(-40);
      if (errors.length) console.log(`# ${f} (errors, last ${errors.length}):`);
      for (const line of errors) console.log(`#   ${line.slice(0, 400)}`);
    }
    if (!f.endsWith('Reconcile Studio.log')) continue;
    const lines = readFileSync(join(logs, f), 'utf8').trimEnd().split('\n');
    console.log(`# ${f} (last ${Math.min(lines.length, 80)} lines):`);
    for (const line of lines.slice(-80)) console.log(`#   ${line}`);
  }
}

/**
 * Clicks the Reconcile Debugger's Step and waits for the next hold to be rendered; returns the
 * panel's own measure from the click to that render (Playwright's polling excluded), in ms.
 */
export async function stepAndWait(frame: Frame, timeoutMs = 30_000): Promise<number> {
  const app = frame.locator('#app');
  const before = await app.getAttribute('data-hold');
  await frame.getByRole('button', { name: 'Step' }).click();
  await frame.waitForFunction(
    (prev) => {
      const hold = document.getElementById('app')?.dataset.hold;
      return !!hold && hold !== prev;
    },
    before,
    { timeout: timeoutMs },
  );
  return Number(await app.getAttribute('data-step-ms'));
}

/** Shows the Reconcile Debugger's tab `tab` (Reconcile or Charts) and waits until it is drawn. */
export async function showTab(frame: Frame, tab: 'reconcile' | 'charts'): Promise<void> {
  await frame.locator(`#tab-${tab}`).click();
  await frame.locator(`.tabpanel-${tab}`).waitFor({ timeout: 30_000 });
}
