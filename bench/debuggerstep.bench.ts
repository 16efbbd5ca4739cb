/**
 * Step click → rendered phase in the Reconcile Debugger's webview, for a TypeScript session and a
 * Go one, without VS Code: the panel's own code (webviews/debugger/main.ts, bundled here as the
 * build bundles it) runs in a DOM (happy-dom); a click on its Step button posts `step` to a host
 * that does what the editor's does (TypeScript: the stepper of a Manager running the sample's
 * reconciler in its worker, on the fake cluster's virtual clock paced to the wall clock; Go: the
 * sample's manager under Delve, one DAP continue to the next phase), builds the panel's
 * DebuggerState with the editor's models (DebuggerModel; goDebuggerState), passes it through a
 * structured clone as postMessage does, and the panel renders it. Timed from the click to the
 * panel having rendered the new hold (its `data-hold` changed).
 *
 * The floor, measured in the same run on the same panel after each step: the host building the
 * state it holds and the panel rendering it — the channel and a whole render, with no step. What a
 * browser adds (layout, paint, the toolkit's buttons, which are left out of this bundle: happy-dom
 * has no ElementInternals) is in the e2e tests' figures (newuser, godebug print their medians).
 * The Go half needs Go and Delve; skipped without them. Nothing here asserts.
 */
import * as esbuild from 'esbuild';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Window } from 'happy-dom';
import { createCluster } from '../src/cluster/builtins';
import { startServer } from '../src/cluster/endpoints/server';
import { FaultInjector } from '../src/cluster/faults';
import { loadManifests } from '../src/cluster/manifests';
import { PHASES, type DebuggerState, type WebviewMessage } from '../src/protocol';
import { FaultyApiServer } from '../src/runtime/faultyapiserver';
import { DELVE_MISSING, findDelve } from '../src/runtime/godebug/delve';
import { loadReconciler } from '../src/runtime/loader';
import { Manager } from '../src/runtime/manager';
import { WebhookApiServer } from '../src/runtime/webhookapiserver';
import { VirtualClock } from '../src/util/clock';
import { ClockPacer } from '../src/util/pacer';
import { DebuggerModel, eventsOf } from '../src/vscode/model/debuggermodel';
import { goDebuggerState, type GoStop } from '../src/vscode/model/godebugview';
import { blogCluster, sampleSession, USER } from '../test/integration/godebugsample';

const ROOT = join(__dirname, '..');
const SAMPLE = join(ROOT, 'samples', 'quota-operator');
const STEPS = 25;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
}

/** The panel's script as scripts/build.mjs bundles it, less its stylesheets and the toolkit. */
async function panelScript(): Promise<string> {
  const out = await esbuild.build({
    entryPoints: [join(ROOT, 'webviews/debugger/main.ts')],
    bundle: true,
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
    write: false,
    outdir: 'out',
    logLevel: 'warning',
    define: { __RS_VERSION__: '"bench"' },
    plugins: [
      {
        name: 'no-styles-no-toolkit',
        setup(b) {
          b.onResolve({ filter: /^@vscode-elements\/|\.css$/ }, (a) => ({
            path: a.path,
            namespace: 'left-out',
          }));
          b.onLoad({ filter: /.*/, namespace: 'left-out' }, () => ({ contents: '', loader: 'js' }));
        },
      },
    ],
  });
  return out.outputFiles.find((f) => f.path.endsWith('.js'))!.text;
}

/** The panel in a DOM, wired to `onPost` as VS Code wires a webview to its extension. */
interface Panel {
  app: HTMLElement;
  /** Hands the panel a state, as the extension's postMessage does (a structured clone). */
  deliver(state: DebuggerState): void;
  clickStep(): void;
  close(): Promise<void>;
}

function openPanel(script: string, onPost: (msg: WebviewMessage) => void): Panel {
  const window = new Window({ url: 'https://webview.invalid/' });
  const w = window as unknown as Record<string, unknown> & { eval(code: string): void };
  w.acquireVsCodeApi = () => ({
    postMessage: onPost,
    setState: () => undefined,
    getState: () => undefined,
  });
  window.document.body.innerHTML = '<div id="app"></div>';
  w.eval(script);
  const app = window.document.getElementById('app') as unknown as HTMLElement;
  return {
    app,
    deliver(state) {
      window.dispatchEvent(
        new window.MessageEvent('message', { data: structuredClone({ type: 'state', state }) }),
      );
    },
    clickStep() {
      const step = app.querySelector('[aria-label="Step"]');
      if (!step) throw new Error('no Step button');
      step.dispatchEvent(new window.Event('click') as unknown as Event);
    },
    close: () => window.happyDOM.close(),
  };
}

/**
 * Clicks Step up to `steps` times, each once the panel shows a hold, timing click → the new hold
 * rendered; after each, the floor: the host building the state it holds again and the panel
 * rendering it, no step (a turn of the event loop later, as messages come), so each step has a
 * floor of the same size. A step whose hold is in another reconcile is counted apart: a Step
 * past the Result waits for the next request, which is queue time, not the panel's. A Step that
 * holds nowhere within 30 s (no request left) ends the run.
 */
async function measure(
  panel: Panel,
  held: () => Promise<void>,
  state: () => DebuggerState,
  steps: number,
): Promise<Steps> {
  const r: Steps = { within: [], next: [], floor: [] };
  for (let i = 0; i < steps; i++) {
    const before = panel.app.dataset.hold ?? '';
    const arrived = held();
    const t = performance.now();
    panel.clickStep();
    let timer: NodeJS.Timeout | undefined;
    const came = await Promise.race([
      arrived.then(() => true),
      new Promise<false>((res) => (timer = setTimeout(() => res(false), 30_000))),
    ]);
    clearTimeout(timer);
    if (!came) break;
    const ms = performance.now() - t;
    const after = panel.app.dataset.hold ?? '';
    if (!after || after === before) throw new Error(`the panel shows no new hold (${after})`);
    (after.split(':')[0] === before.split(':')[0] ? r.within : r.next).push(ms);
    await new Promise((res) => setImmediate(res));
    const f = performance.now();
    panel.deliver(state());
    r.floor.push(performance.now() - f);
  }
  return r;
}

interface Steps {
  /** Click → rendered, for steps to a phase of the same reconcile (ms). */
  within: number[];
  /** Likewise, for steps on to the next request's first phase. */
  next: number[];
  /** The held state built and rendered again after each step (ms). */
  floor: number[];
}

function report(name: string, r: Steps): void {
  const f = median(r.floor);
  const m = median(r.within);
  console.log(
    `${name} Step click → rendered phase: ${m.toFixed(1)} ms median of ${r.within.length} steps within a reconcile = ${(m / f).toFixed(1)}× the floor ` +
      `(the state built and rendered without a step, ${f.toFixed(2)} ms median of ${r.floor.length}); ` +
      `${r.next.length} steps on to the next request, median ${r.next.length ? median(r.next).toFixed(1) : '—'} ms`,
  );
}

async function typescript(script: string): Promise<void> {
  const clock = new VirtualClock(Date.now());
  const pacer = new ClockPacer(clock);
  pacer.start();
  const cluster = createCluster({ clock, podReadyDelayMs: 500 });
  loadManifests(cluster, [join(SAMPLE, 'config/crd/bases'), join(SAMPLE, 'config/samples')]);
  const loaded = await loadReconciler(join(SAMPLE, 'reconcilers/webapp.reconciler.ts'), {
    isolate: true,
    hangTimeoutMs: 10_000,
  });
  const api = new FaultyApiServer(new WebhookApiServer(cluster), new FaultInjector([]));
  const manager = new Manager({ api, hangTimeoutMs: 10_000 });
  manager.addReconciler(loaded.definition, loaded.reconcile);
  const model = new DebuggerModel(
    manager,
    eventsOf(cluster),
    loaded.definition.for,
    'reconcilers/webapp.reconciler.ts',
  );
  model.setBreakpoints([...PHASES], []);
  const panel = openPanel(script, (msg) => {
    if (msg.type === 'step') manager.stepper?.step();
    // The panel says `ready` while it loads: the answer comes after, as from the extension.
    if (msg.type === 'ready') queueMicrotask(() => panel.deliver(model.state()));
  });
  let onHold: (() => void) | undefined;
  manager.on('held', (h) => {
    // As the editor's session: a hold is published at once.
    model.onHeld(h);
    panel.deliver(model.state());
    onHold?.();
  });
  manager.on('resumed', () => model.onResumed());
  manager.on('reconcileStart', (t) => model.onReconcileStart(t));
  manager.on('reconcileEnd', (t) => model.onReconcileEnd(t));
  const held = () => new Promise<void>((r) => (onHold = r));
  try {
    const first = held();
    manager.stepper?.pause();
    manager.start();
    await first;
    report('TypeScript', await measure(panel, held, () => model.state(), STEPS));
  } finally {
    // Nothing to hold at any more: the manager stops.
    model.setBreakpoints([], []);
    manager.stepper?.continue();
    pacer.stop();
    await manager.stop();
    await loaded.dispose();
    cluster.close();
    await panel.close();
  }
}

async function go(script: string): Promise<void> {
  const dlv = await findDelve();
  if (!dlv) {
    console.log(`Go: skipped: ${DELVE_MISSING}`);
    return;
  }
  const cluster = blogCluster(200);
  const server = await startServer({ cluster });
  server.addUser(USER);
  const dir = mkdtempSync(join(tmpdir(), 'rs-bench-debuggerstep-'));
  const s = await sampleSession(dlv, server, dir);
  const origin = Date.now();
  let stops: GoStop[] = [];
  let stopping = false;
  const state = (): DebuggerState => {
    const last = stops[stops.length - 1];
    return goDebuggerState({
      status: 'held',
      message: `Held at ${last?.phase.phase ?? ''}`,
      reconciler: 'webapp',
      origin,
      stops,
      held: true,
      traces: [],
      breakpoints: { phases: [...PHASES], outcomes: [] },
      findings: [],
      depth: [],
      holds: [],
    });
  };
  let onHold: (() => void) | undefined;
  const panel = openPanel(script, (msg) => {
    if (msg.type === 'ready') queueMicrotask(() => panel.deliver(state()));
    if (msg.type !== 'step') return;
    // As the editor's Go session: one continue to the next phase, the stop read, published.
    s.step().then(
      (phase) => {
        if (phase.phase === 'dequeue') stops = [];
        stops.push({ phase, at: Date.now() });
        panel.deliver(state());
        onHold?.();
      },
      // The last Step may wait for a request that never comes: the session's stop ends it.
      (err: unknown) => {
        if (!stopping) console.error(err);
      },
    );
  });
  const held = () => new Promise<void>((r) => (onHold = r));
  try {
    await s.start();
    const first = await s.step(); // held at the first phase: the manager is up
    stops.push({ phase: first, at: Date.now() });
    panel.deliver(state());
    report('Go', await measure(panel, held, state, STEPS));
  } finally {
    stopping = true;
    await s.stop();
    await server.close();
    cluster.close();
    await panel.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const script = await panelScript();
  // The pacer's timer does not keep the process up (unref), and a hold waits on it.
  const alive = setInterval(() => undefined, 1000);
  try {
    await typescript(script);
    await go(script);
  } finally {
    clearInterval(alive);
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
