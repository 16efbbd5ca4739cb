import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HeldState } from '../../src/runtime/stepper';
import { CONFIGMAP, Releases, WEBAPP, configMap, env, webapp } from './helpers';
import type { Env } from './helpers';

function reconcilerFor(e: Env) {
  return e.mgr.addReconciler({ for: WEBAPP }, async (ctx, req) => {
    const app = await ctx.client.get(WEBAPP, req);
    app.status = { phase: 'Running' };
    await ctx.client.status().update(app);
    return { requeueAfter: 10_000 };
  });
}

/** Resolves with the next held state. */
function nextHold(e: Env): Promise<HeldState> {
  return new Promise((resolve) => {
    const off = e.mgr.on('held', (h) => {
      off();
      resolve(h);
    });
  });
}

test('a phase breakpoint holds the reconcile with the trace so far and freezes the clock', async (t) => {
  const e = await env(t);
  reconcilerFor(e);
  e.mgr.stepper!.setBreakpoints({ phases: ['status'] });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  const held = nextHold(e);
  const run = e.clock.advance(60_000);
  const h = await held;
  assert.equal(h.phase.phase, 'status');
  assert.equal(h.when, 'enter');
  assert.deepEqual(
    h.trace.phases.map((p) => p.phase),
    ['enqueue', 'dequeue', 'reconcile', 'read', 'diff', 'status'],
  );
  assert.equal(h.phase.call?.code, 0, 'the write has not happened yet');
  assert.equal(e.cluster.get(WEBAPP, { namespace: 'default', name: 'w' }).status, undefined);
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(e.clock.now(), 0, 'virtual time does not move while held');
  e.mgr.stepper!.setBreakpoints({});
  e.mgr.stepper!.continue();
  await run;
  assert.equal(e.clock.now(), 60_000);
});

test('step holds at every following phase boundary, in order', async (t) => {
  const e = await env(t);
  reconcilerFor(e);
  e.mgr.stepper!.setBreakpoints({ phases: ['enqueue'] });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  const seen: string[] = [];
  const off = e.mgr.on('held', (h) => {
    seen.push(h.phase.phase);
    if (h.phase.phase === 'result') {
      e.mgr.stepper!.setBreakpoints({});
      e.mgr.stepper!.continue();
    } else setImmediate(() => e.mgr.stepper!.step());
  });
  await e.clock.advance(1);
  off();
  assert.deepEqual(seen.slice(0, 7), [
    'enqueue',
    'dequeue',
    'reconcile',
    'read',
    'diff',
    'status',
    'result',
  ]);
});

test('an outcome breakpoint holds after a NotFound read', async (t) => {
  const e = await env(t);
  e.mgr.addReconciler({ for: CONFIGMAP }, async (ctx, req) => {
    try {
      await ctx.client.get(WEBAPP, req);
    } catch {
      // not there
    }
    return {};
  });
  e.mgr.stepper!.setBreakpoints({ outcomes: ['NotFound'] });
  e.cluster.create(configMap('x'));
  e.mgr.start();
  const held = nextHold(e);
  const run = e.clock.advance(1000);
  const h = await held;
  assert.equal(h.when, 'exit');
  assert.equal(h.phase.phase, 'read');
  assert.equal(h.phase.call?.code, 404);
  e.mgr.stepper!.continue();
  await run;
});

test('request breakpoints only hold the named request', async (t) => {
  const e = await env(t);
  reconcilerFor(e);
  e.mgr.stepper!.setBreakpoints({ phases: ['reconcile'], requests: ['default/b'] });
  e.cluster.create(webapp('a'));
  e.cluster.create(webapp('b'));
  e.mgr.start();
  const held = nextHold(e);
  const run = e.clock.advance(1000);
  const h = await held;
  assert.equal(h.trace.key, 'default/b');
  e.mgr.stepper!.setBreakpoints({});
  e.mgr.stepper!.continue();
  await run;
});

test('stepping never changes what happens: the same traces with and without holds', async () => {
  async function runOnce(hold: boolean) {
    // Each run is released before the next starts, even when it throws.
    const own = new Releases();
    try {
      return await traceOf(await env(own), hold);
    } finally {
      await own.releaseAll();
    }
  }
  async function traceOf(e: Env, hold: boolean) {
    reconcilerFor(e);
    if (hold) {
      e.mgr.stepper!.setBreakpoints({ phases: ['diff', 'result'] });
      e.mgr.on('held', () => setImmediate(() => e.mgr.stepper!.continue()));
    }
    e.cluster.create(webapp('a'));
    e.cluster.create(webapp('b'));
    e.mgr.start();
    await e.clock.advance(35_000);
    const out = e.mgr.traces().map((t) => ({
      key: t.key,
      start: t.start,
      calls: t.calls.map((c) => `${c.verb}:${c.code}:${c.noop ?? ''}`),
      next: t.next,
    }));
    return out;
  }
  assert.deepEqual(await runOnce(true), await runOnce(false));
});

test('a reconcile held at a breakpoint longer than the hang timeout is not abandoned', async (t) => {
  const e = await env(t, { hangTimeoutMs: 40 });
  reconcilerFor(e);
  e.mgr.stepper!.setBreakpoints({ phases: ['read'] });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  const ends: Array<{ error?: { message: string }; phases: string[] }> = [];
  e.mgr.on('reconcileEnd', (tr) =>
    ends.push({ error: tr.error, phases: tr.phases.map((p) => p.phase) }),
  );
  const held = nextHold(e);
  const run = e.clock.advance(1);
  assert.equal((await held).phase.phase, 'read');
  await new Promise((r) => setTimeout(r, 150)); // held for more than three hang timeouts
  e.mgr.stepper!.setBreakpoints({});
  e.mgr.stepper!.continue();
  await run;
  await new Promise((r) => setTimeout(r, 20));
  assert.ok(ends.length >= 1);
  assert.deepEqual(
    ends.map((end) => end.error),
    ends.map(() => undefined),
    'held time is not running time',
  );
  assert.deepEqual(ends[0]!.phases, [
    'enqueue',
    'dequeue',
    'reconcile',
    'read',
    'diff',
    'status',
    'result',
  ]);
  assert.deepEqual(e.cluster.get(WEBAPP, { namespace: 'default', name: 'w' }).status, {
    phase: 'Running',
  });
});

test('the stepper counts the time it holds, the current hold included', async (t) => {
  const e = await env(t);
  reconcilerFor(e);
  const stepper = e.mgr.stepper!;
  assert.equal(stepper.heldMs(), 0);
  stepper.setBreakpoints({ phases: ['read'] });
  e.cluster.create(webapp('w'));
  e.mgr.start();
  const held = nextHold(e);
  const run = e.clock.advance(1);
  await held;
  await new Promise((r) => setTimeout(r, 30));
  const during = stepper.heldMs();
  assert.ok(during >= 25, `held ${during} ms so far`);
  stepper.setBreakpoints({});
  stepper.continue();
  await run;
  const after = stepper.heldMs();
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(stepper.heldMs(), after, 'nothing is counted once released');
});
