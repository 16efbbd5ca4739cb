/**
 * The debugger's view of a real run: the sample reconciler (in-process) on the fake cluster with
 * its manifests, on a virtual clock. Holds, phases, results and findings as the panel shows them.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { createCluster } from '../../../src/cluster/builtins';
import { FaultInjector, INJECTED_QUOTA } from '../../../src/cluster/faults';
import { loadManifests } from '../../../src/cluster/manifests';
import { loadReconciler } from '../../../src/runtime/loader';
import { FaultyApiServer } from '../../../src/runtime/faultyapiserver';
import { Manager } from '../../../src/runtime/manager';
import type { HeldState } from '../../../src/runtime/stepper';
import { VirtualClock } from '../../../src/util/clock';
import { DebuggerModel, eventsOf } from '../../../src/vscode/model/debuggermodel';

const ROOT = join(__dirname, '..', '..', '..');
const SAMPLE = join(ROOT, 'samples/quota-operator');

/** `faults`: the cluster's calls go through a FaultInjector the debugger can add rules to. */
async function session(opts: { faults?: boolean } = {}) {
  const clock = new VirtualClock(1_000_000);
  const cluster = createCluster({ clock, podReadyDelayMs: 500 });
  const res = loadManifests(cluster, [
    join(SAMPLE, 'config/crd/bases'),
    join(SAMPLE, 'config/samples'),
  ]);
  assert.deepEqual(res.errors, []);
  const loaded = await loadReconciler(join(SAMPLE, 'reconcilers/webapp.reconciler.ts'), {
    isolate: false,
  });
  const faults = opts.faults ? new FaultInjector([]) : undefined;
  const manager = new Manager({ api: faults ? new FaultyApiServer(cluster, faults) : cluster });
  manager.addReconciler(loaded.definition, loaded.reconcile);
  const model = new DebuggerModel(
    manager,
    eventsOf(cluster),
    loaded.definition.for,
    'reconcilers/webapp.reconciler.ts',
  );
  if (faults) model.useFaults(faults);
  const held: HeldState[] = [];
  manager.on('held', (h) => {
    held.push(h);
    model.onHeld(h);
  });
  manager.on('resumed', () => model.onResumed());
  manager.on('reconcileEnd', (t) => model.onReconcileEnd(t));
  const close = async () => {
    await manager.stop();
    await loaded.dispose();
    cluster.close();
  };
  return { clock, cluster, manager, model, held, close };
}

async function until(
  clock: VirtualClock,
  cond: () => boolean,
  stepMs = 10,
  maxMs = 60_000,
): Promise<void> {
  for (let t = 0; t < maxMs && !cond(); t += stepMs) await clock.advance(stepMs);
  assert.ok(cond(), 'condition reached');
}

describe('DebuggerModel on the sample operator', () => {
  it('shows the held reconcile at the phase of the breakpoint, with its calls so far', async () => {
    const s = await session();
    try {
      s.model.setBreakpoints(['write'], []);
      s.manager.start();
      // A hold freezes the clock, so time is advanced in the background until the hold arrives.
      const held = new Promise<void>((resolve) => s.manager.on('held', () => resolve()));
      const running = s.clock.advance(60_000);
      await held;
      const st = s.model.state();
      assert.equal(st.status, 'held');
      assert.equal(st.current?.heldAt, 'write');
      assert.match(
        st.message,
        /^Held at write of default\/(shop|blog) \(breakpoint, before it runs\)$/,
      );
      assert.deepEqual(
        st.current?.calls.map((c) => [c.verb, c.resource, c.code, c.source]),
        [
          ['get', 'webapps', 200, 'cache'],
          ['get', 'deployments', 404, 'cache'],
          // The held write is shown before it happens: no status code yet.
          ['create', 'deployments', 0, 'server'],
        ],
      );
      assert.equal(st.current?.result, null, 'no result while held before the write');
      assert.equal(st.origin, 1_000_000);
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await s.close();
    }
  });

  it('after the create, says the request comes back exactly 5 s later (requeueAfter)', async () => {
    const s = await session();
    try {
      s.manager.start();
      await until(s.clock, () => s.manager.traces().some((t) => t.end !== undefined));
      // The first reconcile of a key creates its Deployment.
      assert.ok(s.model.inspect(s.manager.traces()[0]!.reconcileID));
      const st = s.model.state();
      const r = st.current?.result;
      assert.equal(r?.returned, '{ requeueAfter: 5s }');
      assert.equal(r?.next, 'requeue after 5s (requeueAfter)');
      assert.equal(r?.delayMs, 5_000);
      assert.equal(r?.nextAt, st.current!.end! + 5_000);
      assert.ok(
        st.current?.writes.some(
          (w) => w.verb === 'create' && w.resource === 'deployments' && w.code === 201,
        ),
      );
    } finally {
      await s.close();
    }
  });

  it('reports the quota conflict of the two WebApps as a finding with the quota numbers', async () => {
    const s = await session();
    try {
      s.manager.start();
      await s.clock.advance(30_000);
      const findings = s.model.refreshFindings(30_000);
      const quota = findings.find((f) => f.kind === 'quota-conflict');
      assert.ok(quota, `findings: ${findings.map((f) => f.kind).join(', ')}`);
      assert.match(
        quota.message,
        /exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3/,
      );
      const shown = s.model.state().findings.find((f) => f.kind === 'quota-conflict');
      assert.ok(shown && shown.evidence.length > 0);
      assert.ok(s.model.openFinding(s.model.state().findings.indexOf(shown)));
    } finally {
      await s.close();
    }
  });

  it('keeps this key\u2019s history and lets the user inspect an earlier reconcile', async () => {
    const s = await session();
    try {
      s.manager.start();
      await s.clock.advance(20_000);
      const st = s.model.state();
      assert.ok(st.history.length >= 2, 'several reconciles of one key');
      const first = st.history[0]!;
      assert.ok(s.model.inspect(first.id));
      assert.equal(s.model.state().current?.id, first.id);
      assert.equal(s.model.inspect('no-such-id'), false);
    } finally {
      await s.close();
    }
  });
});

/**
 * A model on an empty manager whose wall clock the test moves (`wall.now`), for the charts'
 * measures; `hold()` holds a reconcile of default/a.
 */
function bareModel(startWall: number) {
  const clock = new VirtualClock(0);
  const cluster = createCluster({ clock, controllers: false });
  const manager = new Manager({ api: cluster });
  const wall = { now: startWall };
  const model = new DebuggerModel(
    manager,
    eventsOf(cluster),
    { apiVersion: 'v1', kind: 'ConfigMap' },
    'x',
    0,
    () => wall.now,
  );
  const hold = () =>
    model.onHeld({
      trace: { key: 'default/a' },
      phase: { phase: 'read' },
      reason: 'step',
      when: 'enter',
    } as HeldState);
  const trace = (id: number) =>
    ({ id, key: 'default/a', start: 0, end: 0 }) as Parameters<DebuggerModel['onReconcileEnd']>[0];
  return { model, wall, hold, trace, close: () => cluster.close() };
}

describe('DebuggerModel latency chart', () => {
  it('charts wall-clock reconcile time without the time spent held at a breakpoint', async () => {
    const { model, wall, hold, trace, close } = bareModel(0);
    const t = trace(1);
    model.onReconcileStart(t);
    wall.now = 5;
    hold();
    wall.now = 10_005; // ten seconds looking at the held phase
    model.onResumed();
    wall.now = 10_008;
    model.onReconcileEnd(t);
    // At the running time 8: ten seconds held left out.
    assert.deepEqual(model.state().charts.latencyMs, [[0, 8, 8]]);
    close();
  });

  it('puts a hot loop on the virtual clock apart on running time', () => {
    const { model, wall, hold, trace, close } = bareModel(100);
    // Three reconciles of one key at one instant of the controller's clock, 4 ms of wall each,
    // with a hold of a minute in the middle of the second.
    for (const t of [1, 2, 3].map(trace)) {
      model.onReconcileStart(t);
      model.onQueueChange(0, 1);
      wall.now += 2;
      if (t.id === 2) {
        hold();
        wall.now += 60_000;
        assert.equal(model.runNow(), 6, 'the running time stands still while held');
        model.onResumed();
      }
      wall.now += 2;
      model.onReconcileEnd(t);
    }
    const runs = (points: Array<[number, number, number]>) => points.map((p) => p[2]);
    assert.deepEqual(runs(model.state().charts.queueDepth), [0, 4, 8]);
    assert.deepEqual(runs(model.state().charts.latencyMs), [4, 8, 12]);
    assert.equal(model.state().charts.runMs, 12);
    close();
  });
});

describe('DebuggerModel fault injection into the held call', () => {
  /** Holds before the first write (or status write); returns the background clock advance. */
  async function holdAtWrite(
    s: Awaited<ReturnType<typeof session>>,
    phase: 'write' | 'status' = 'write',
  ): Promise<{ running: Promise<number> }> {
    s.model.setBreakpoints([phase], []);
    s.manager.start();
    const held = new Promise<void>((resolve) => s.manager.on('held', () => resolve()));
    const running = s.clock.advance(60_000);
    await held;
    return { running };
  }

  /** Steps once and waits for the next hold (the held call's exit, once it has its answer). */
  async function stepToNextHold(s: Awaited<ReturnType<typeof session>>): Promise<void> {
    const next = new Promise<void>((resolve) => {
      const off = s.manager.on('held', () => {
        off();
        resolve();
      });
    });
    s.manager.stepper?.step();
    await next;
  }

  it('fails the held write with Conflict when asked: 409, marked injected in the calls and the timeline', async () => {
    const s = await session({ faults: true });
    let running: Promise<number> | undefined;
    try {
      ({ running } = await holdAtWrite(s));
      const key = s.model.state().current!.request;
      assert.equal(s.model.state().faultTarget, `create deployments ${key.namespace}/${key.name}`);
      s.model.injectFault('conflict');
      assert.equal(s.model.state().faultTarget, undefined, 'one fault per held call');
      assert.match(s.model.state().message, /will fail with Conflict: Step/);
      await stepToNextHold(s);
      const call = s.model.state().current!.calls.at(-1)!;
      assert.deepEqual([call.verb, call.resource, call.code], ['create', 'deployments', 409]);
      assert.equal(call.fault, 'debugger-1: Conflict');
      assert.match(call.message ?? '', /the object has been modified/);
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await until(s.clock, () => s.manager.traces().filter((t) => t.end !== undefined).length >= 2);
      const timeline = s.model.state().history;
      assert.deepEqual(timeline[0]?.faults, ['debugger-1: Conflict']);
      // One shot: the retry's create is not faulted.
      assert.ok(timeline.slice(1).every((r) => r.faults === undefined));
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
      await s.close();
    }
  });

  it('delays the held write on the virtual clock when asked ("Delay it")', async () => {
    const s = await session({ faults: true });
    let running: Promise<number> | undefined;
    try {
      ({ running } = await holdAtWrite(s));
      const heldAt = s.clock.now();
      s.model.injectFault('delay');
      await stepToNextHold(s);
      const call = s.model.state().current!.calls.at(-1)!;
      assert.deepEqual([call.verb, call.code, call.fault], ['create', 201, 'debugger-1: Delay 2s']);
      assert.equal(s.clock.now() - heldAt, 2000, 'the answer came 2 s later in controller time');
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
      await s.close();
    }
  });

  it('fails the held status write with Internal Error: the status subresource is matched', async () => {
    const s = await session({ faults: true });
    let running: Promise<number> | undefined;
    try {
      ({ running } = await holdAtWrite(s, 'status'));
      const key = s.model.state().current!.request;
      assert.equal(
        s.model.state().faultTarget,
        `update webapps/status ${key.namespace}/${key.name}`,
      );
      s.model.injectFault('internal');
      await stepToNextHold(s);
      const call = s.model.state().current!.calls.at(-1)!;
      assert.deepEqual(
        [call.verb, call.subresource, call.code, call.fault],
        ['update', 'status', 500, 'debugger-1: Internal Error'],
      );
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
      await s.close();
    }
  });

  it('fails the held create with Forbidden by quota in the ResourceQuota admission wording', async () => {
    const s = await session({ faults: true });
    let running: Promise<number> | undefined;
    try {
      ({ running } = await holdAtWrite(s));
      const key = s.model.state().current!.request;
      s.model.injectFault('quota');
      await stepToNextHold(s);
      const call = s.model.state().current!.calls.at(-1)!;
      assert.deepEqual(
        [call.verb, call.code, call.fault],
        ['create', 403, 'debugger-1: Forbidden by quota'],
      );
      // The create's name is in its body: admission (and so the message) names the object.
      assert.equal(
        call.message,
        `deployments.apps "${key.name}" is forbidden: exceeded quota: ${INJECTED_QUOTA}, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0`,
      );
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
      await s.close();
    }
  });

  it('offers no fault where there is no injector, or away from a write', async () => {
    const s = await session();
    let running: Promise<number> | undefined;
    try {
      ({ running } = await holdAtWrite(s));
      assert.equal(s.model.state().faultTarget, undefined);
      assert.throws(() => s.model.injectFault('conflict'), /only while held before a write/);
    } finally {
      s.model.setBreakpoints([], []);
      s.manager.stepper?.continue();
      await running;
      await s.close();
    }
  });
});
